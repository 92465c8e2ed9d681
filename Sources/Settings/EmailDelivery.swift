import FoundationEssentials

/// How Gatehouse sends email (README "Email"), derived from the `email_*`, `smtp_*` and
/// `sendmail_command` keys; `Settings.emailDelivery` is nil when no transport is configured.
public struct EmailDelivery: Sendable, Equatable {
    public enum Transport: Sendable, Equatable {
        case smtp(SMTPURL, username: String?, passwordFile: String?, password: String?, caFile: String?)
        /// The program and its arguments, split on spaces (no shell).
        case sendmail([String])
    }

    /// The `email_from` value (`addr@example.com` or `Name <addr@example.com>`), checked at load.
    public let from: String
    public let transport: Transport
    /// A directory whose `<locale>/<template>.<part>` files replace the embedded ones.
    public let templatesDirectory: String?
    /// A message still undelivered this long after it was queued is given up.
    public let maxAge: Duration

    /// The SMTP password: `IDP_SMTP_PASSWORD` (`smtp_password`), else the first line of
    /// `smtp_password_file`; nil when neither is set. Read at use, so a rotated file is picked up.
    public func smtpPassword() throws(ConfigurationError) -> String? {
        guard case .smtp(_, _, let file, let inline, _) = transport else { return nil }
        if let inline { return inline }
        guard let file else { return nil }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigurationError(problems: [ConfigProblem(source: .file(file, line: 0), key: "smtp_password_file", message: "cannot read the file")])
        }
        var text = Substring(decoding: data, as: UTF8.self)
        while let last = text.last, last == "\n" || last == "\r" { text.removeLast() }
        return String(text)
    }
}

extension Settings {
    /// The email configuration, or nil when neither `smtp_url` nor `sendmail_command` is set
    /// (the account flows then offer no "Forgot password?"). `SettingsLoader` has already refused
    /// an incomplete or contradictory combination.
    public var emailDelivery: EmailDelivery? {
        let transport: EmailDelivery.Transport
        if let smtpURL {
            transport = .smtp(smtpURL, username: smtpUsername, passwordFile: smtpPasswordFile, password: smtpPassword, caFile: smtpCAFile)
        } else if let sendmailCommand {
            transport = .sendmail(sendmailCommand)
        } else {
            return nil
        }
        guard let emailFrom else { return nil }
        return EmailDelivery(from: emailFrom, transport: transport, templatesDirectory: emailTemplates, maxAge: emailMaxAge)
    }

    /// Problems with the email keys taken together (each key's own syntax is checked by its parser).
    func emailProblems(source: (String) -> SettingSource) -> [ConfigProblem] {
        var problems: [ConfigProblem] = []
        if smtpURL != nil, sendmailCommand != nil {
            problems.append(ConfigProblem(source: source("sendmail_command"), key: "sendmail_command",
                                          message: "set either smtp_url or sendmail_command, not both"))
        }
        if smtpURL != nil || sendmailCommand != nil, emailFrom == nil {
            problems.append(ConfigProblem(source: source(smtpURL != nil ? "smtp_url" : "sendmail_command"), key: "email_from",
                                          message: "required when email is configured (e.g. \"Example <no-reply@example.com>\")"))
        }
        if smtpURL == nil, smtpUsername != nil || smtpPasswordFile != nil || smtpPassword != nil || smtpCAFile != nil {
            let key = smtpUsername != nil ? "smtp_username" : smtpPasswordFile != nil ? "smtp_password_file" : smtpPassword != nil ? "smtp_password" : "smtp_ca_file"
            problems.append(ConfigProblem(source: source(key), key: key, message: "has no effect without smtp_url"))
        }
        if smtpPassword != nil || smtpPasswordFile != nil, smtpUsername == nil {
            problems.append(ConfigProblem(source: source(smtpPassword != nil ? "smtp_password" : "smtp_password_file"), key: "smtp_username",
                                          message: "required when a password is set"))
        }
        return problems
    }
}

extension ValueParsers {
    /// `addr@example.com` or `Name <addr@example.com>`: one address, no line breaks or control
    /// characters (the value becomes the From header). The full check is `Mail.MailAddress`; this
    /// is the same rule, kept here so a bad value stops startup like any other key.
    static func emailFrom(_ text: String) -> Result<String?, ParseFailure> {
        let failure = ParseFailure("expected an address such as no-reply@example.com or \"Example <no-reply@example.com>\", found \"\(text)\"")
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return .failure(failure) }
        var address = Substring(text.trimmingSpaces())
        if address.hasSuffix(">"), let open = address.lastIndex(of: "<") {
            address = address[address.index(after: open)..<address.index(before: address.endIndex)]
        }
        let bytes = Array(address.utf8)
        let forbidden = Set("<>()[],;:\\\" ".utf8)
        guard bytes.filter({ $0 == UInt8(ascii: "@") }).count == 1, let at = bytes.firstIndex(of: UInt8(ascii: "@")),
              at > 0, at < bytes.count - 1, bytes[(at + 1)...].contains(UInt8(ascii: ".")),
              bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !forbidden.contains($0) }) else { return .failure(failure) }
        return .success(text.trimmingCharactersSpaces())
    }

    /// A command line split on spaces: the program (absolute, or found on PATH) and its arguments.
    static func command(_ text: String) -> Result<[String]?, ParseFailure> {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let program = words.first else { return .failure("expected a command such as \"msmtp -t\" or \"/usr/sbin/sendmail -t\"") }
        guard !text.contains(where: { "'\"`$|;&<>".contains($0) }), !program.utf8.contains(0) else {
            return .failure("the command runs without a shell: no quotes, $, |, ;, & or redirections (found \"\(text)\")")
        }
        return .success(words)
    }
}
