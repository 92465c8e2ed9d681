import FoundationEssentials
import OIDC

/// Page texts in the user's language (README "Languages"): the shipped catalogues
/// (`Config/locales/*.strings`, embedded), with an operator's directory of `<tag>.strings` files
/// overriding texts key by key or adding languages. English fills any key a language lacks.
struct PageText: Sendable {
    /// Texts by language tag, then key.
    let catalogues: [String: [String: String]]

    init(overrides directory: String? = nil) {
        var catalogues = Self.shippedCatalogues
        if let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) {
            for name in names where name.hasSuffix(".strings") {
                let tag = String(name.dropLast(".strings".count)).lowercased()
                guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { continue }
                catalogues[tag, default: [:]].merge(Self.parse(String(decoding: data, as: UTF8.self))) { _, override in override }
            }
        }
        self.catalogues = catalogues
    }

    /// The shipped texts alone (tests, and pages built before settings are read).
    static let shipped = PageText()

    /// Parsed once per process: both `shipped` and the daemon's catalogues start from them.
    private static let shippedCatalogues = EmbeddedLocales.files.mapValues(parse)

    /// The catalogue for the first language of `preferences` that exists, else English.
    func language(_ preferences: [String]) -> Language {
        let tag = LocalePreference.pick(preferences, available: Set(catalogues.keys))
        return Language(tag: tag, texts: catalogues[tag] ?? [:], english: catalogues["en"] ?? [:])
    }

    /// One language's texts.
    struct Language: Sendable {
        let tag: String
        let texts: [String: String]
        let english: [String: String]

        /// The text for `key` with `{name}` placeholders filled; a key no catalogue has is shown as
        /// given (a message the core wrote in English, such as a lock-out with its wait).
        func callAsFunction(_ key: String, _ values: [String: String] = [:]) -> String {
            var text = texts[key] ?? english[key] ?? key
            for (name, value) in values { text = text.replacing("{\(name)}", with: value) }
            return text
        }
    }

    /// `key = text` lines (split at LF or CR); `#` comments and blank lines skipped.
    ///
    /// Lines are found on the UTF-8 bytes: splitting the text into Characters first walked grapheme
    /// clusters over both catalogues, about 2 ms of every start (issue #18).
    static func parse(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for bytes in text.utf8.split(whereSeparator: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
            let line = Substring(bytes)
            guard let equals = line.utf8.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = line[..<equals].trimmingWhitespace()
            guard !key.isEmpty, !key.hasPrefix("#") else { continue }
            result[key] = line[line.utf8.index(after: equals)...].trimmingWhitespace()
        }
        return result
    }
}
