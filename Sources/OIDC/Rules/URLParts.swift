/// A URL split into RFC 3986 components by byte positions only: nothing is decoded,
/// lower-cased or normalised, so the pieces compare exactly as they were sent.
///
/// Used by the allow-list rules. Parsing never fails on odd input; callers inspect
/// `userinfo`, `hasBackslash` and friends to refuse what they must.
struct URLParts: Equatable {
    /// Everything before the first `:` (only when it is a valid RFC 3986 scheme).
    var scheme: [UInt8]
    /// True when `//` follows the scheme.
    var hasAuthority: Bool
    /// Raw authority, `userinfo@host:port`.
    var authority: [UInt8]
    /// The part before the last `@` of the authority, if any.
    var userinfo: [UInt8]?
    var host: [UInt8]
    /// The digits (or whatever follows the host's `:`); nil when absent.
    var port: [UInt8]?
    var path: [UInt8]
    /// Without the leading `?`.
    var query: [UInt8]?
    /// Without the leading `#`.
    var fragment: [UInt8]?
    /// Everything after the authority (path, query and fragment), exactly as sent.
    var tail: [UInt8]

    /// nil for relative references and strings without a valid scheme.
    init?(_ text: String) {
        self.init(bytes: Array(text.utf8))
    }

    init?(bytes: [UInt8]) {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
        let scheme = Array(bytes[..<colon])
        guard ASCII.isLetter(scheme[0]), scheme.allSatisfy(ASCII.isSchemeCharacter) else { return nil }
        self.scheme = scheme
        var index = colon + 1
        if bytes.count >= index + 2, bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "/") {
            hasAuthority = true
            index += 2
            let start = index
            while index < bytes.count, !"/?#".utf8.contains(bytes[index]) { index += 1 }
            authority = Array(bytes[start..<index])
        } else {
            hasAuthority = false
            authority = []
        }
        tail = Array(bytes[index...])

        // Authority: [userinfo@]host[:port]; the last `@` ends userinfo, as browsers parse it.
        var hostAndPort = authority[...]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            userinfo = Array(authority[..<at])
            hostAndPort = authority[(at + 1)...]
        } else {
            userinfo = nil
        }
        if hostAndPort.first == UInt8(ascii: "["), let close = hostAndPort.firstIndex(of: UInt8(ascii: "]")) {
            host = Array(hostAndPort[...close])
            let rest = hostAndPort[(close + 1)...]
            // RFC 3986 §3.2: after an IP literal only `:port` may follow.
            guard rest.isEmpty || rest.first == UInt8(ascii: ":") else { return nil }
            port = rest.isEmpty ? nil : Array(rest.dropFirst())
        } else if let portColon = hostAndPort.firstIndex(of: UInt8(ascii: ":")) {
            host = Array(hostAndPort[..<portColon])
            port = Array(hostAndPort[(portColon + 1)...])
        } else {
            host = Array(hostAndPort)
            port = nil
        }

        // Tail: path ? query # fragment.
        var rest = tail[...]
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) {
            fragment = Array(rest[(hash + 1)...])
            rest = rest[..<hash]
        } else {
            fragment = nil
        }
        if let question = rest.firstIndex(of: UInt8(ascii: "?")) {
            query = Array(rest[(question + 1)...])
            rest = rest[..<question]
        } else {
            query = nil
        }
        path = Array(rest)
    }

    var schemeString: String { String(decoding: scheme, as: UTF8.self) }
    var hostString: String { String(decoding: host, as: UTF8.self) }
    var pathString: String { String(decoding: path, as: UTF8.self) }
    var lowercasedScheme: [UInt8] { scheme.map(ASCII.lowercase) }
    var lowercasedHost: [UInt8] { host.map(ASCII.lowercase) }

    /// `http` or `https`, in any letter case.
    var isWeb: Bool { lowercasedScheme == Array("http".utf8) || lowercasedScheme == Array("https".utf8) }

    /// True for `127.0.0.1` and `[::1]`: the RFC 8252 §7.3 loopback literals.
    var isLoopbackLiteral: Bool { host == Array("127.0.0.1".utf8) || host == Array("[::1]".utf8) }

    /// Loopback literals plus `localhost` (accepted with plain http for development).
    var isLoopbackHost: Bool { isLoopbackLiteral || lowercasedHost == Array("localhost".utf8) }

    /// The port as a number when it is 1–5 ASCII digits within 1...65535 (absent → nil).
    var numericPort: Int? {
        guard let port, !port.isEmpty, port.count <= 5, port.allSatisfy(ASCII.isDigit) else { return nil }
        let value = port.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (1...65_535).contains(value) ? value : nil
    }

    /// The port a browser would use: explicit, or the scheme's default (http 80, https 443).
    var effectivePort: Int? {
        if port != nil { return numericPort }
        switch lowercasedScheme {
        case Array("http".utf8): return 80
        case Array("https".utf8): return 443
        default: return nil
        }
    }

    /// The host's dot-separated labels.
    var hostLabels: [[UInt8]] {
        host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Array.init)
    }
}

/// Byte classes used by the URL rules.
enum ASCII {
    static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    static func isSchemeCharacter(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
    /// Letters, digits and hyphen: what one DNS label may hold.
    static func isLabelCharacter(_ byte: UInt8) -> Bool { isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") }
    /// Control characters, space and DEL.
    static func isControlOrSpace(_ byte: UInt8) -> Bool { byte <= 0x20 || byte == 0x7F }
    static func lowercase(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }
}
