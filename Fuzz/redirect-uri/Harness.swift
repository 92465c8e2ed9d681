// Fuzzes the allow-list rules for callbacks, logout URLs and web origins
// (Sources/OIDC/RedirectURIPolicy.swift, URLParts.swift, RedirectURIDiagnosis.swift).
//
// Input: a first line naming the list (`callback`, `logout` or `web_origin` by its first
// letter; `native` anywhere in it for a native app), the requested URL, then up to eight
// allowed entries, one per line.
//
// Invariants, from RedirectURIPolicy's documentation (RFC 9700 §4.1.3, RFC 6749 §3.1.2, RFC 8252 §7.3):
// - registrationProblems, match and the refusal diagnosis never crash; the first matching entry wins;
// - every entry registration accepts matches itself (a wildcard entry: with its * filled in);
// - a URL that a registered entry accepts differs from it only where the rules allow:
//   callbacks byte for byte except the loopback port (native apps) and the wildcard label;
//   logout URLs also in the letter case of scheme and host, and in query and fragment (the
//   entry's and the request's);
//   web origins in letter case and an explicit default port.
// That last rule is checked by an independent model below, on the requested URL and on a
// near miss made from each entry.

@testable import OIDC

typealias Kind = RedirectURIPolicy.ListKind

func fuzz(_ input: [UInt8]) {
    let lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    guard lines.count >= 2 else { return }
    let header = Array(lines[0])
    let kind: Kind = header.first == UInt8(ascii: "l") ? .logout : header.first == UInt8(ascii: "w") ? .webOrigin : .callback
    let isNative = find(Array("native".utf8), in: header)
    let requested = String(decoding: lines[1], as: UTF8.self)
    let allowed = lines.dropFirst(2).prefix(8).map { String(decoding: $0, as: UTF8.self) }

    // The public API: the first entry that matches on its own is the one reported.
    let first = allowed.firstIndex { matches(requested, $0, kind: kind, isNative: isNative) }
    switch RedirectURIPolicy.match(requested, allowed: allowed, kind: kind, isNative: isNative) {
    case .allowed(let entry):
        invariant(first.map { Array(allowed[$0].utf8) } == Array(entry.utf8), "allowed by \(entry), but the first match is \(String(describing: first))")
    case .refused(_, let nearest):
        invariant(first == nil, "refused, though \(allowed[first!]) matches on its own")
        invariant(nearest.map { near in allowed.contains { Array($0.utf8) == Array(near.utf8) } } ?? true, "nearest is not an entry")
    }

    let hash = fnv1a(input)
    for (index, entry) in allowed.enumerated() {
        guard RedirectURIPolicy.registrationProblems(entry, kind: kind, isNative: isNative).isEmpty else { continue }
        let filled = String(decoding: entry.utf8.flatMap { $0 == UInt8(ascii: "*") ? Array("x".utf8) : [$0] }, as: UTF8.self)
        guard case .allowed = RedirectURIPolicy.match(filled, allowed: [entry], kind: kind, isNative: isNative) else {
            invariant(false, "registered \(kind) \(describe(entry.utf8)) does not match \(describe(filled.utf8))")
            return
        }
        let nearMiss = String(decoding: mutate(Array(entry.utf8), hash &+ UInt64(index)), as: UTF8.self)
        // Bytes after an IP literal's `]` other than `:port` make no URL (Tests/OIDCTests/FuzzRegressionTests.swift).
        for candidate in [requested, nearMiss] where matches(candidate, entry, kind: kind, isNative: isNative) {
            invariant(Rules.allows(Array(candidate.utf8), entry: Array(entry.utf8), kind: kind, isNative: isNative),
                      "registered \(kind) \(describe(entry.utf8)) accepts \(describe(candidate.utf8))\(isNative ? " (native)" : "")")
        }
    }
}

/// One entry's verdict, through the same rule `match` applies (without the refusal diagnosis).
func matches(_ requested: String, _ entry: String, kind: Kind, isNative: Bool) -> Bool {
    let bytes = Array(requested.utf8)
    let parsed = URLParts(bytes: bytes)
    switch kind {
    case .callback: return RedirectURIPolicy.callbackMatches(entry: Array(entry.utf8), requested: bytes, parsed: parsed, isNative: isNative)
    case .logout: return RedirectURIPolicy.logoutMatches(entry: Array(entry.utf8), requested: parsed, isNative: isNative)
    case .webOrigin: return RedirectURIPolicy.originMatches(entry: Array(entry.utf8), requested: parsed)
    }
}

/// A small edit of `bytes` chosen by `seed`: a byte replaced, case-flipped, removed or inserted, or a port added.
func mutate(_ bytes: [UInt8], _ seed: UInt64) -> [UInt8] {
    guard !bytes.isEmpty else { return bytes }
    var out = bytes
    let position = Int((seed >> 8) % UInt64(bytes.count))
    let byte = UInt8(truncatingIfNeeded: seed >> 40)
    switch seed % 5 {
    case 0: out[position] = byte
    case 1: out[position] ^= 0x20
    case 2: out.remove(at: position)
    case 3: out.insert(byte, at: position)
    default:
        let port = Array(":\(seed % 70_000)".utf8)
        let hostEnd = Rules.split(out).flatMap { $0.authority?.endIndex } ?? position
        out.insert(contentsOf: port, at: hostEnd)
    }
    return out
}

func find(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}

/// An independent reading of the documented rules, over raw bytes, used only as an upper bound:
/// whatever the real matcher accepts from a registered entry, this must accept too.
enum Rules {
    struct Parts {
        var scheme: ArraySlice<UInt8>
        /// After `//`, up to the first `/`, `?` or `#` (RFC 3986 §3.2).
        var authority: ArraySlice<UInt8>?
        var rest: ArraySlice<UInt8>
    }

    static func split(_ url: [UInt8]) -> Parts? {
        guard let colon = url.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
        let after = url[(colon + 1)...]
        guard after.starts(with: "//".utf8) else { return Parts(scheme: url[..<colon], authority: nil, rest: after) }
        let start = after.startIndex + 2
        let end = url[start...].firstIndex { "/?#".utf8.contains($0) } ?? url.endIndex
        return Parts(scheme: url[..<colon], authority: url[start..<end], rest: url[end...])
    }

    static func allows(_ requested: [UInt8], entry: [UInt8], kind: Kind, isNative: Bool) -> Bool {
        guard let r = split(requested), let e = split(entry) else { return requested == entry }
        switch kind {
        case .callback:
            if requested == entry { return true }
            guard r.scheme.elementsEqual(e.scheme), r.rest.elementsEqual(e.rest), let ra = r.authority, let ea = e.authority else {
                return false
            }
            return wildcard(Array(ea), matches: Array(ra)) || (isNative && loopbackAnyPort(r, e))
        case .logout:
            // Query and fragment are ignored on both sides (an entry may carry a query for
            // RP-Initiated Logout, which matches it exactly under the callback rules).
            let path = r.rest.prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
            let entryPath = e.rest.prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
            guard lower(r.scheme) == lower(e.scheme), path.elementsEqual(entryPath), (r.authority == nil) == (e.authority == nil) else {
                return false
            }
            guard let ra = r.authority, let ea = e.authority else { return true }
            return wildcard(lower(ea), matches: lower(ra)) || (isNative && loopbackAnyPort(r, e))
        case .webOrigin:
            let scheme = lower(r.scheme)
            guard scheme == lower(e.scheme), scheme == Array("http".utf8) || scheme == Array("https".utf8),
                  r.rest.isEmpty, e.rest.isEmpty, let ra = r.authority, let ea = e.authority,
                  let (requestHost, requestPort) = hostAndPort(lower(ra), scheme: scheme),
                  let (entryHost, entryPort) = hostAndPort(lower(ea), scheme: scheme), requestPort == entryPort else { return false }
            return wildcard(entryHost, matches: requestHost)
        }
    }

    /// Equal, or equal with the entry's one `*` standing for one or more letters, digits and hyphens.
    static func wildcard(_ pattern: [UInt8], matches text: [UInt8]) -> Bool {
        guard let star = pattern.firstIndex(of: UInt8(ascii: "*")) else { return pattern == text }
        let prefix = pattern[..<star], suffix = pattern[(star + 1)...]
        guard text.count > prefix.count + suffix.count, text.starts(with: prefix), text.reversed().starts(with: suffix.reversed()) else {
            return false
        }
        return text[prefix.count..<(text.count - suffix.count)].allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "-")
        }
    }

    /// RFC 8252 §7.3: `http` to the same loopback literal, same everything else, any valid port.
    static func loopbackAnyPort(_ r: Parts, _ e: Parts) -> Bool {
        guard r.scheme.elementsEqual("http".utf8), e.scheme.elementsEqual("http".utf8),
              let ra = r.authority, let ea = e.authority else { return false }
        for literal in ["127.0.0.1", "[::1]"].map({ Array($0.utf8) }) where ea.starts(with: literal) && ra.starts(with: literal) {
            let entryPort = ea.dropFirst(literal.count), requestPort = ra.dropFirst(literal.count)
            guard entryPort.isEmpty || entryPort.first == UInt8(ascii: ":") else { continue }
            if requestPort.isEmpty { return true }
            if requestPort.first == UInt8(ascii: ":"), port(Array(requestPort.dropFirst())) != nil { return true }
        }
        return false
    }

    /// Host and the port a browser would use (default 80 or 443 when absent); nil for an invalid port.
    static func hostAndPort(_ authority: [UInt8], scheme: [UInt8]) -> ([UInt8], Int)? {
        let colon: Int?
        if authority.first == UInt8(ascii: "["), let close = authority.firstIndex(of: UInt8(ascii: "]")) {
            colon = close + 1 < authority.count ? close + 1 : nil
            if let colon, authority[colon] != UInt8(ascii: ":") { return nil }
        } else {
            colon = authority.firstIndex(of: UInt8(ascii: ":"))
        }
        guard let colon else { return (authority, scheme == Array("https".utf8) ? 443 : 80) }
        guard let number = port(Array(authority[(colon + 1)...])) else { return nil }
        return (Array(authority[..<colon]), number)
    }

    /// 1 to 5 ASCII digits with a value from 1 to 65535.
    static func port(_ digits: [UInt8]) -> Int? {
        guard (1...5).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        return (1...65_535).contains(value) ? value : nil
    }

    static func lower(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
    }
}
