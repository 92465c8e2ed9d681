/// Explains a refused allow-list match for operators: which entry was meant, and the first
/// component that differs from it. Never shown to end users (it names the registered URLs).
struct Diagnosis {
    let requested: [UInt8]
    let parsed: URLParts?
    let allowed: [String]
    let kind: RedirectURIPolicy.ListKind
    let isNative: Bool
    /// The entry the requester most likely meant.
    let nearest: String?

    init(requested: [UInt8], parsed: URLParts?, allowed: [String], kind: RedirectURIPolicy.ListKind, isNative: Bool) {
        self.requested = requested
        self.parsed = parsed
        self.allowed = allowed
        self.kind = kind
        self.isNative = isNative
        nearest = Self.pickNearest(requested: requested, parsed: parsed, allowed: allowed)
    }

    /// Same scheme and host (case-insensitively, or by wildcard) first, then the smallest edit distance.
    static func pickNearest(requested: [UInt8], parsed: URLParts?, allowed: [String]) -> String? {
        guard !allowed.isEmpty else { return nil }
        var candidates = allowed
        if let request = parsed {
            let sameSite = allowed.filter { entry in
                guard let url = URLParts(entry), url.lowercasedScheme == request.lowercasedScheme else { return false }
                if let wildcard = WildcardHost(url) {
                    return wildcard.matches(request.host, caseInsensitive: true)
                }
                return url.lowercasedHost == request.lowercasedHost
            }
            if !sameSite.isEmpty { candidates = sameSite }
        }
        var best: (entry: String, distance: Int)?
        for entry in candidates {
            let distance = editDistance(Array(entry.utf8), requested)
            if best == nil || distance < best!.distance { best = (entry, distance) }
        }
        return best?.entry
    }

    /// Levenshtein distance over bytes, on at most the first 512 bytes of each side (bounded work).
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        let a = Array(a.prefix(512)), b = Array(b.prefix(512))
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    private var noun: String {
        switch kind {
        case .callback: "callback"
        case .logout: "logout URL"
        case .webOrigin: "web origin"
        }
    }

    private static func quoted(_ bytes: [UInt8]?) -> String {
        guard let bytes else { return "none" }
        return "\"" + String(decoding: bytes, as: UTF8.self) + "\""
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The first rule the requested URL breaks, in the order an operator would check.
    func reason() -> String {
        guard !allowed.isEmpty else { return "no allowed \(noun) is registered for this application" }
        if requested.contains(where: ASCII.isControlOrSpace) { return "the URL contains whitespace or control characters" }
        guard let request = parsed else { return "not an absolute URL (no scheme)" }
        if kind != .logout, request.fragment != nil { return "fragments are never allowed" }
        if request.userinfo != nil {
            return "userinfo (\(Self.quoted(request.userinfo))@) is never allowed: the host would really be \(request.hostString)"
        }
        if request.authority.contains(UInt8(ascii: "\\")) { return "backslashes are never allowed in the host" }

        let entries = allowed.compactMap { entry in URLParts(entry).map { (entry, $0) } }
        let exactScheme = kind == .callback
        let schemeUsed = entries.contains { _, url in
            exactScheme ? url.scheme == request.scheme : url.lowercasedScheme == request.lowercasedScheme
        }
        if !schemeUsed {
            if let other = entries.first(where: { $0.1.lowercasedScheme == request.lowercasedScheme }) {
                return "scheme differs in letter case from \(other.0) (\(request.schemeString) vs \(other.1.schemeString)); callbacks compare exactly"
            }
            return "no allowed \(noun) uses the scheme \(request.schemeString)"
        }
        guard let nearest, let entry = URLParts(nearest) else { return "does not match any allowed \(noun)" }
        if kind == .webOrigin, !request.tail.isEmpty {
            return "an origin is scheme://host[:port] only; this one has a path, query or fragment"
        }
        if let hostReason = hostReason(request: request, entry: entry, nearest: nearest) { return hostReason }
        if let portReason = portReason(request: request, entry: entry, nearest: nearest) { return portReason }
        if kind == .webOrigin { return "does not match the nearest entry \(nearest)" }
        if request.path != entry.path {
            return "path differs from \(nearest) " + differenceDescription(request.path, entry.path)
        }
        if kind == .callback, request.query != entry.query {
            return "query differs from \(nearest) (\(Self.quoted(request.query.map { Array("?".utf8) + $0 })) vs \(Self.quoted(entry.query.map { Array("?".utf8) + $0 })))"
        }
        if Self.text(requested) == nearest { return "differs from \(nearest) only in Unicode normalisation (URLs are compared byte for byte)" }
        if kind == .callback, request.lowercasedScheme == entry.lowercasedScheme, request.scheme != entry.scheme {
            return "scheme differs in letter case from \(nearest) (\(request.schemeString) vs \(entry.schemeString)); callbacks compare exactly"
        }
        return "does not exactly match \(nearest)"
    }

    private func hostReason(request: URLParts, entry: URLParts, nearest: String) -> String? {
        if let wildcard = WildcardHost(entry) {
            let labels = request.hostLabels
            let caseInsensitive = kind != .callback
            if wildcard.matches(request.host, caseInsensitive: caseInsensitive) { return nil }
            let extra = labels.count - wildcard.rest.count
            let fold: ([UInt8]) -> [UInt8] = caseInsensitive ? { $0.map(ASCII.lowercase) } : { $0 }
            let suffixMatches = labels.count >= wildcard.rest.count
                && zip(labels.suffix(wildcard.rest.count), wildcard.rest).allSatisfy { fold($0) == fold($1) }
            if suffixMatches, extra != 1 {
                let count = ["none", "one", "two", "three", "four", "five"]
                let words = extra >= 0 && extra < count.count ? count[extra] : "\(extra)"
                return "wildcard matches exactly one label but the host has \(words) in its place (\(request.hostString) vs \(entry.hostString))"
            }
            if suffixMatches {
                return "host label \(Self.text(labels[0])) does not fit the wildcard label \(wildcard.patternLabel) of \(nearest) (only letters, digits and hyphens)"
            }
            return "host differs from the nearest entry \(nearest) (\(request.hostString) vs \(entry.hostString))"
        }
        let same = kind == .callback ? request.host == entry.host : request.lowercasedHost == entry.lowercasedHost
        if same { return nil }
        if kind == .callback, request.lowercasedHost == entry.lowercasedHost {
            return "host differs in letter case from \(nearest) (\(request.hostString) vs \(entry.hostString)); callbacks compare exactly"
        }
        if request.hostString == entry.hostString {
            return "host differs from \(nearest) only in Unicode normalisation (URLs are compared byte for byte)"
        }
        return "host differs from the nearest entry \(nearest) (\(request.hostString) vs \(entry.hostString))"
    }

    private func portReason(request: URLParts, entry: URLParts, nearest: String) -> String? {
        if kind == .webOrigin {
            if request.effectivePort == entry.effectivePort, request.effectivePort != nil { return nil }
        } else if request.port == entry.port {
            return nil
        }
        if kind != .webOrigin, entry.scheme == Array("http".utf8), entry.isLoopbackLiteral, !isNative {
            return "port differs (loopback any-port applies only to native apps)"
        }
        let show: ([UInt8]?) -> String = { $0.map { ":" + Self.text($0) } ?? "none" }
        return "port differs from \(nearest) (\(show(request.port)) vs \(show(entry.port)))"
    }

    /// "at character N ("requested" vs "entry")", N counted from 1 in the component.
    private func differenceDescription(_ requested: [UInt8], _ entry: [UInt8]) -> String {
        if Self.text(requested) == Self.text(entry) {
            return "only in Unicode normalisation (\(Self.quoted(requested)) vs \(Self.quoted(entry)); URLs are compared byte for byte)"
        }
        var index = 0
        while index < requested.count, index < entry.count, requested[index] == entry[index] { index += 1 }
        return "at character \(index + 1) (\(Self.quoted(requested)) vs \(Self.quoted(entry)))"
    }
}
