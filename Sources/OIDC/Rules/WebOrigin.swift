/// Serialized web origins (RFC 6454 §6.1): `scheme://host[:port]`, lower-cased, default port dropped.
///
/// Used to compare a request's `Origin` with a client's Allowed Web Origins and to build CSP sources.
/// Wildcards and `{organization_name}` placeholders are not origins and never match here.
public enum WebOrigin {
    /// The normalised origin of `text`, or nil when it is not a well-formed origin.
    ///
    /// - Parameter allowPath: accept and ignore a path, query or fragment (configured Web Origins and
    ///   URLs); an `Origin` header never has one, so it is parsed with `false`.
    public static func normalize(_ text: String, allowPath: Bool = false) -> String? {
        guard let separator = text.firstRange(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard isScheme(scheme) else { return nil }
        var authority = text[separator.upperBound...]
        if let end = authority.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            guard allowPath else { return nil }
            authority = authority[..<end]
        }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }

        let host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let inner = authority[authority.index(after: authority.startIndex)..<close]
            guard !inner.isEmpty, inner.utf8.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                return nil
            }
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard !host.isEmpty, host.utf8.allSatisfy(isHostByte) else { return nil }
        }

        var result = scheme + "://" + host.lowercased()
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let port = Int(portText), port > 0, port <= 65_535 else { return nil }
            if defaultPort(scheme) != port { result += ":\(port)" }
        }
        return result
    }

    /// Whether two origins are the same after normalisation (scheme, host, port; default ports equal absent).
    public static func same(_ lhs: String, _ rhs: String, allowPath: Bool = false) -> Bool {
        guard let left = normalize(lhs, allowPath: allowPath), let right = normalize(rhs, allowPath: allowPath) else { return false }
        return left == right
    }

    /// The CSP source that lets a form submit to `action`: its origin for http(s), its scheme (`com.app:`) otherwise.
    public static func cspSource(forAction action: String) -> String? {
        guard let separator = action.firstIndex(of: ":") else { return nil }
        let scheme = action[..<separator].lowercased()
        guard isScheme(scheme) else { return nil }
        if scheme == "http" || scheme == "https" { return normalize(action, allowPath: true) }
        // Schemes that run or embed content are never form targets.
        if ["javascript", "data", "vbscript", "blob", "file", "filesystem"].contains(scheme) { return nil }
        return scheme + ":"
    }

    public static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    private static func isScheme(_ scheme: String) -> Bool {
        guard let first = scheme.utf8.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") else { return false }
        return scheme.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102)
    }
}
