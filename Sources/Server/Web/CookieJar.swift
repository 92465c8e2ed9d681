import HTTP

/// Request cookies (RFC 6265 §5.4 `Cookie:` header) as a name → value map.
enum CookieJar {
    /// Parses `a=1; b=2`: tolerates extra spaces, ignores malformed pairs, keeps the first of duplicate names.
    static func parse(_ header: String?) -> [String: String] {
        var cookies: [String: String] = [:]
        guard let header else { return cookies }
        // Bytes, never Characters (RFC 6265 §5.4): a `;` followed by a combining mark is one
        // Character, and U+037E is canonically equal to ";", so Character splitting could hide or
        // invent a separator.
        for piece in Array(header.utf8).split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: true) {
            guard let equals = piece.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = trimmed(piece[..<equals])
            var value = trimmed(piece[(equals + 1)...])
            if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
                value = value.dropFirst().dropLast()
            }
            guard isToken(name), value.allSatisfy(isCookieOctet) else { continue }
            let key = String(decoding: name, as: UTF8.self)
            if cookies[key] == nil { cookies[key] = String(decoding: value, as: UTF8.self) }
        }
        return cookies
    }

    /// Without leading and trailing SP and HTAB.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var view = bytes
        while let first = view.first, isSpace(first) { view = view.dropFirst() }
        while let last = view.last, isSpace(last) { view = view.dropLast() }
        return view
    }

    /// Every `Cookie` field of `headers`, parsed together in arrival order.
    static func parse(_ headers: HTTPHeaders) -> [String: String] {
        let values = headers.values("Cookie")
        return values.isEmpty ? [:] : parse(values.joined(separator: "; "))
    }

    /// cookie-octet: US-ASCII except CTLs, whitespace, DQUOTE, comma, semicolon and backslash.
    static func isCookieOctet(_ byte: UInt8) -> Bool {
        byte == 0x21 || (0x23...0x2B).contains(byte) || (0x2D...0x3A).contains(byte)
            || (0x3C...0x5B).contains(byte) || (0x5D...0x7E).contains(byte)
    }

    private static func isToken(_ name: ArraySlice<UInt8>) -> Bool {
        !name.isEmpty && name.allSatisfy { byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                || "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
