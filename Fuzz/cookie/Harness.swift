// Fuzzes CookieJar (Sources/Server/Web/CookieJar.swift), the `Cookie:` request header parser
// (RFC 6265 §4.2.1, §5.4). CookieJar lives in the Server module, which is too heavy to link
// here; scripts/fuzz compiles that one file into this harness instead (see target.conf).
//
// Input: one Cookie field per line. Invariants: names are tokens and values cookie-octets;
// several fields parse as one joined by "; "; serializing the result parses back to it; and the
// result equals an independent byte-level reading of the documented rules (split on `;`, first
// `=`, spaces and tabs trimmed, one pair of quotes dropped, malformed pairs skipped, first
// duplicate kept).

import HTTP

func fuzz(_ input: [UInt8]) {
    let fields = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    let joined = fields.joined(separator: "; ")
    let cookies = CookieJar.parse(joined)
    let fromHeaders = CookieJar.parse(HTTPHeaders(fields.map { ("Cookie", $0) }))
    invariant(fromHeaders == cookies, "several Cookie fields parse differently from one joined field")

    for (name, value) in cookies {
        invariant(!name.isEmpty && name.utf8.allSatisfy(isTokenByte), "name \(describe(name.utf8)) is not a token")
        invariant(value.utf8.allSatisfy(CookieJar.isCookieOctet), "value \(describe(value.utf8)) has bytes outside cookie-octet")
    }
    let serialized = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
    invariant(CookieJar.parse(serialized) == cookies, "serialized cookies \(describe(serialized.utf8)) parse differently")

    // Byte-level splitting, the rule the reference reads (Tests/WebTests/FuzzRegressionTests.swift
    // pins the U+037E and combining-mark inputs that Character splitting got wrong).
    let reference = referenceParse(Array(joined.utf8))
    let parsed = Dictionary(uniqueKeysWithValues: cookies.map { (Array($0.key.utf8), Array($0.value.utf8)) })
    invariant(parsed == reference, "CookieJar and the byte-level reading differ on \(describe(joined.utf8))")
}


/// tchar (RFC 9110 §5.6.2).
func isTokenByte(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
}

/// The documented rules over bytes.
func referenceParse(_ header: [UInt8]) -> [[UInt8]: [UInt8]] {
    func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }
    var cookies: [[UInt8]: [UInt8]] = [:]
    for piece in header.split(separator: UInt8(ascii: ";")) {
        guard let equals = piece.firstIndex(of: UInt8(ascii: "=")) else { continue }
        let name = Array(trimmed(piece[..<equals]))
        var value = trimmed(piece[(equals + 1)...])
        if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") { value = value.dropFirst().dropLast() }
        guard !name.isEmpty, name.allSatisfy(isTokenByte), value.allSatisfy(CookieJar.isCookieOctet) else { continue }
        if cookies[name] == nil { cookies[name] = Array(value) }
    }
    return cookies
}
