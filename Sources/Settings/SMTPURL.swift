/// The `smtp_url` setting: `smtp://host[:port]` (STARTTLS) or `smtps://host[:port]` (implicit
/// TLS, RFC 8314 §3.3). Credentials never go in the URL: config files are read by many, and the
/// URL is shown by `idp-admin config check`.
public struct SMTPURL: Sendable, Equatable, CustomStringConvertible {
    public let implicitTLS: Bool
    /// The host as written (an IPv6 literal without its brackets).
    public let host: String
    public let port: Int

    public static func parse(_ text: String) -> Result<SMTPURL, ParseFailure> {
        let implicitTLS: Bool
        var rest: Substring
        if text.lowercased().hasPrefix("smtp://") {
            implicitTLS = false
            rest = text.dropFirst(7)
        } else if text.lowercased().hasPrefix("smtps://") {
            implicitTLS = true
            rest = text.dropFirst(8)
        } else {
            return .failure("expected smtp://host[:port] (STARTTLS) or smtps://host[:port] (implicit TLS), found \"\(text)\"")
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("@") else {
            return .failure("put the user name in smtp_username and the password in smtp_password_file or IDP_SMTP_PASSWORD, not in the URL")
        }
        guard !rest.contains("/"), !rest.contains("?"), !rest.contains("#") else {
            return .failure("expected only a host and port after \(implicitTLS ? "smtps" : "smtp")://, found \"\(text)\"")
        }
        var host = Substring(rest)
        var portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return .failure("unclosed [ in \"\(text)\"") }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { return .failure("unexpected text after ] in \"\(text)\"") }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "%") }) else {
            return .failure("expected a host name or address in \"\(text)\"")
        }
        var port = implicitTLS ? 465 : 587
        if let portText {
            guard let value = ValueParsers.digits(String(portText)), (1...65535).contains(value) else {
                return .failure("expected a port from 1 to 65535 in \"\(text)\"")
            }
            port = value
        }
        return .success(SMTPURL(implicitTLS: implicitTLS, host: String(host), port: port))
    }

    /// `localhost`, 127.0.0.0/8 or ::1: the only hosts plain-text SMTP may reach (the issue's rule:
    /// no credentials or codes in clear over a network).
    public var isLoopback: Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered.hasSuffix(".localhost") || lowered == "::1" { return true }
        let octets = lowered.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { ValueParsers.digits(String($0)).map { $0 <= 255 } ?? false }
    }

    /// The URL libcurl is given.
    public var description: String {
        "\(implicitTLS ? "smtps" : "smtp")://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}
