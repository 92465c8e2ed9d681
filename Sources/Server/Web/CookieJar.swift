import HTTP

/// Request cookies (RFC 6265 §5.4 `Cookie:` header) as a name → value map.
enum CookieJar {
    /// Parses `a=1; b=2`: tolerates extra spaces, ignores malformed pairs, keeps the first of duplicate names.
    static func parse(_ header: String?) -> [String: String] {
        var cookies: [String: String] = [:]
        guard let header else { return cookies }
        for piece in header.split(separator: ";", omittingEmptySubsequences: true) {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            let name = piece[..<equals].trimmingSpaces
            var value = Substring(piece[piece.index(after: equals)...].trimmingSpaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = value.dropFirst().dropLast()
            }
            guard isToken(name), value.utf8.allSatisfy(isCookieOctet) else { continue }
            if cookies[name] == nil { cookies[name] = String(value) }
        }
        return cookies
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

    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                || "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

private extension Substring {
    var trimmingSpaces: String {
        var view = self
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}
