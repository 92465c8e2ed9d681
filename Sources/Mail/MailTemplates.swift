import FoundationEssentials

/// A rendered message body: what `OutgoingMessage` needs besides the addresses.
public struct RenderedMail: Sendable, Equatable {
    public let locale: String
    public let subject: String
    public let text: String
    public let html: String?
}

/// The message templates: the defaults embedded in the binary (`EmbeddedTemplates`, generated
/// from `Config/templates/` by `scripts/embed-templates`), overridden file by file by an
/// operator's directory laid out the same way (`<dir>/<locale>/<template>.subject|.txt|.html`).
///
/// Locale choice: the exact tag (`ja`, `pt-br`), then its language (`ja-JP` → `ja`), then `en`.
/// A locale serves a template when it has that template's subject and text (HTML is optional).
public struct MailTemplates: Sendable {
    public static let fallbackLocale = "en"
    let embedded: [String: String]
    let overrideDirectory: String?

    public init(overrideDirectory: String? = nil) {
        self.init(embedded: EmbeddedTemplates.files, overrideDirectory: overrideDirectory)
    }

    init(embedded: [String: String], overrideDirectory: String?) {
        self.embedded = embedded
        self.overrideDirectory = overrideDirectory
    }

    /// Renders template `name` (`verify_email`, …) for the best locale for `locale`.
    public func render(_ name: String, locale: String, values: [String: String]) throws(MessageError) -> RenderedMail {
        guard Self.isSafeName(name) else { throw .unknownTemplate(name) }
        for candidate in Self.candidates(for: locale) {
            guard let subject = file(candidate, name, "subject"), let text = file(candidate, name, "txt") else { continue }
            let html = file(candidate, name, "html")
            let base = "\(candidate)/\(name)"
            var renderedSubject = try Template(parsing: subject, name: base + ".subject").render(values, escapeHTML: false)
            // The file ends with a line break; a subject is one line.
            while renderedSubject.last?.isNewline == true { renderedSubject.removeLast() }
            return RenderedMail(locale: candidate, subject: renderedSubject,
                                text: try Template(parsing: text, name: base + ".txt").render(values, escapeHTML: false),
                                html: try html.map { (source) throws(MessageError) in
                                    try Template(parsing: source, name: base + ".html").render(values, escapeHTML: true)
                                })
        }
        throw .unknownTemplate(name)
    }

    /// `ja-JP` → [`ja-jp`, `ja`, `en`]; anything unsafe as a path component is skipped.
    static func candidates(for locale: String) -> [String] {
        let tag = locale.lowercased().replacing("_", with: "-")
        var list: [String] = []
        if isSafeName(tag) { list.append(tag) }
        if let language = tag.split(separator: "-").first.map(String.init), isSafeName(language), !list.contains(language) {
            list.append(language)
        }
        if !list.contains(fallbackLocale) { list.append(fallbackLocale) }
        return list
    }

    /// Letters, digits, `-` and `_`, 1–35 characters: never `..` or `/`, so a locale from a
    /// request cannot name a file outside the template directory.
    static func isSafeName(_ text: String) -> Bool {
        (1...35).contains(text.utf8.count)
            && text.utf8.allSatisfy { ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 95 }
    }

    private func file(_ locale: String, _ name: String, _ part: String) -> String? {
        let relative = "\(locale)/\(name).\(part)"
        if let overrideDirectory, let data = FileManager.default.contents(atPath: overrideDirectory + "/" + relative) {
            return String(decoding: data, as: UTF8.self)
        }
        return embedded[relative]
    }
}
