/// The languages a page or message should be in, best first: the request's `ui_locales` (OIDC
/// Core §3.1.2.1, space-separated BCP 47 tags) before the browser's `Accept-Language` (RFC 9110
/// §12.5.4, weighted by `q`; `q=0` means "not this one"). Tags are lower-cased; malformed ones
/// are skipped. The caller picks the first it has, and falls back to English.
public enum LocalePreference {
    public static func ordered(uiLocales: String?, acceptLanguage: String?) -> [String] {
        var result: [String] = []
        for tag in (uiLocales ?? "").split(separator: " ") {
            if let tag = normalized(tag), !result.contains(tag) { result.append(tag) }
        }
        var weighted: [(tag: String, q: Double, position: Int)] = []
        for (position, item) in (acceptLanguage ?? "").split(separator: ",").prefix(32).enumerated() {
            let parts = item.split(separator: ";")
            guard let first = parts.first, let tag = normalized(first.trimmingWhitespace()) else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.trimmingWhitespace().split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].lowercased() == "q", let value = Double(pair[1]), (0...1).contains(value) { q = value }
            }
            if q > 0 { weighted.append((tag, q, position)) }
        }
        for entry in weighted.sorted(by: { $0.q != $1.q ? $0.q > $1.q : $0.position < $1.position }) where !result.contains(entry.tag) {
            result.append(entry.tag)
        }
        return result
    }

    /// The first of `preferences` that `available` has, exactly (`ja-jp`) or by language (`ja`); else `fallback`.
    public static func pick(_ preferences: [String], available: Set<String>, fallback: String = "en") -> String {
        for tag in preferences {
            if available.contains(tag) { return tag }
            if let language = tag.split(separator: "-").first.map(String.init), available.contains(language) { return language }
        }
        return fallback
    }

    /// Letters, digits and `-`, 1 to 35 characters (BCP 47's longest tags), lower-cased; `*` is dropped.
    static func normalized(_ tag: some StringProtocol) -> String? {
        guard !tag.isEmpty, tag.count <= 35, tag != "*",
              tag.unicodeScalars.allSatisfy({ ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" }) else {
            return nil
        }
        return tag.lowercased()
    }
}
