/// Allow-list rules for Allowed Callback URLs, Allowed Logout URLs and Allowed Web Origins.
///
/// Matching works on UTF-8 bytes, never on Swift `String ==` (which uses canonical
/// equivalence, so an NFD spelling would match an NFC entry), and never normalises:
/// RFC 9700 §4.1.3 and RFC 6749 §3.1.2 want exact comparison.
///
/// The rules, by list:
/// - **Callbacks** (`.callback`): the whole URL byte for byte. Two widenings only:
///   an Auth0 wildcard entry (`https://*.example.com/cb`, `https://pr-*.example.com/cb`), whose
///   `*` stands for letters, digits and hyphens inside exactly one host label, everything else
///   exact; and, for native apps, RFC 8252 §7.3 loopback: an `http://127.0.0.1/…` or
///   `http://[::1]/…` entry matches the same URL with any port (`localhost` is not a loopback
///   literal for this rule, and `https` loopback is not special). A requested URL with a
///   fragment is always refused. The `/oidc/logout` `post_logout_redirect_uri` uses these rules too.
/// - **Logout URLs** (`.logout`, Auth0 `/v2/logout` `returnTo`): the query and fragment of the
///   requested URL and of the entry are ignored; scheme and host compare case-insensitively, port
///   and path exactly; wildcard and native loopback rules as for callbacks. An entry may carry a
///   query: OpenID RP-Initiated Logout's `post_logout_redirect_uri` (`/oidc/logout`) is matched
///   against the same list under the callback rules, exactly, query included.
/// - **Web origins** (`.webOrigin`): `scheme://host[:port]`, scheme and host case-insensitive,
///   a default port equal to an absent one; wildcard as above.
///
/// Registration rules (`registrationProblems`), RFC 9700 §2.6, RFC 8252 §7–8, Auth0's docs:
/// - absolute URLs only, no whitespace or control characters, ASCII only (percent-encode
///   paths, use punycode hosts), never a fragment, never userinfo or backslashes;
/// - `javascript:`, `data:`, `file:`, `vbscript:`, `blob:` and `about:` are always refused;
/// - `https` for every host; plain `http` only for loopback hosts (`127.0.0.1`, `[::1]`, and
///   `localhost` for development), whatever the application type;
/// - custom schemes only for native apps; never for SPAs, regular web apps or web origins. A
///   scheme without a `.` is accepted, as Auth0 accepts it, with a warning
///   (`registrationWarnings`): RFC 8252 §7.1 asks for a reverse-domain scheme, which another
///   app is less likely to claim;
/// - `*` at most once, only in the left-most label of an http(s) host, with at least two labels
///   after it (`https://*.com` is refused), never in an IP literal, scheme, path or query;
/// - the scheme and host of an http(s) entry in lower case (matching is exact, so an upper-case
///   entry would only ever match a client that sends the same odd spelling);
/// - web origins without a path, query or fragment (not even a trailing `/`).
public enum RedirectURIPolicy {
    /// Which allow-list an entry belongs to.
    public enum ListKind: String, Sendable {
        case callback, logout, webOrigin = "web_origin"
    }

    /// The outcome of matching a requested URL against an allow-list.
    public enum Match: Sendable, Equatable {
        /// The entry it matched.
        case allowed(entry: String)
        /// Refused; `reason` says exactly why for operators (never shown to end users),
        /// `nearest` is the closest entry, if any.
        case refused(reason: String, nearest: String?)
    }

    /// Problems with an entry an operator wants to register (empty when acceptable).
    /// `isNative` allows custom schemes and loopback `http`.
    public static func registrationProblems(_ entry: String, kind: ListKind, isNative: Bool) -> [String] {
        let bytes = Array(entry.utf8)
        guard !bytes.isEmpty else { return ["the URL is empty"] }
        var problems: [String] = []
        if bytes.contains(where: ASCII.isControlOrSpace) {
            problems.append("the URL contains whitespace or control characters")
        }
        if bytes.contains(where: { $0 >= 0x80 }) {
            problems.append("the URL contains non-ASCII characters: percent-encode the path and use the punycode (xn--) form of the host")
        }
        if bytes.contains(UInt8(ascii: "#")) {
            problems.append("fragments (#) are never allowed (RFC 6749 §3.1.2)")
        }
        guard let url = URLParts(bytes: bytes) else {
            problems.append("not an absolute URL: include the scheme, e.g. https://app.example.com/callback")
            return problems
        }
        let scheme = String(decoding: url.lowercasedScheme, as: UTF8.self)
        if ["javascript", "data", "file", "vbscript", "blob", "about"].contains(scheme) {
            problems.append("the \(scheme): scheme is never allowed")
            return problems
        }
        let stars = bytes.filter { $0 == UInt8(ascii: "*") }.count
        if stars > 1 { problems.append("only one * wildcard is allowed per URL") }

        if url.isWeb {
            problems += webProblems(url, scheme: scheme, stars: stars, kind: kind)
        } else {
            if kind == .webOrigin {
                problems.append("a web origin must use http or https, not \(url.schemeString)")
            } else if !isNative {
                problems.append("custom schemes (\(url.schemeString):) are only allowed for native apps")
            }
            if stars > 0 { problems.append("the * wildcard is only allowed in the host of http and https URLs") }
            if url.userinfo != nil { problems.append("userinfo (user@) is never allowed") }
            if bytes.contains(UInt8(ascii: "\\")) { problems.append("backslashes are never allowed") }
        }
        return problems
    }

    /// Acceptable but risky entries, for the operator to reconsider (empty when none).
    public static func registrationWarnings(_ entry: String, kind: ListKind, isNative: Bool) -> [String] {
        guard isNative, kind != .webOrigin, let url = URLParts(bytes: Array(entry.utf8)), !url.isWeb,
              !url.scheme.contains(UInt8(ascii: ".")) else { return [] }
        return ["the custom scheme \(url.schemeString): has no dot: RFC 8252 §7.1 asks native apps for a reverse-domain scheme "
                + "(e.g. com.example.app:) that no other app is likely to claim; accepted, as Auth0 accepts it"]
    }

    /// The http(s)-specific registration rules.
    private static func webProblems(_ url: URLParts, scheme: String, stars: Int, kind: ListKind) -> [String] {
        var problems: [String] = []
        guard url.hasAuthority, !url.host.isEmpty else {
            return ["an http(s) URL needs a host: write \(scheme)://host/path"]
        }
        if url.userinfo != nil { problems.append("userinfo (user@) is never allowed") }
        if url.authority.contains(UInt8(ascii: "\\")) || url.tail.contains(UInt8(ascii: "\\")) {
            problems.append("backslashes are never allowed")
        }
        if url.scheme != url.lowercasedScheme || url.host != url.lowercasedHost {
            problems.append("write the scheme and host in lower case (callbacks are matched exactly)")
        }
        if url.port != nil, url.numericPort == nil {
            problems.append("the port must be a number from 1 to 65535")
        }
        if scheme == "http", !url.isLoopbackHost {
            problems.append("plain http is only allowed for loopback hosts (127.0.0.1, [::1], localhost); use https")
        }
        if stars > 0 {
            if url.host.contains(UInt8(ascii: "*")) {
                if let problem = WildcardHost.problem(with: url) { problems.append(problem) }
            }
            if url.scheme.contains(UInt8(ascii: "*")) || url.tail.contains(UInt8(ascii: "*"))
                || url.port?.contains(UInt8(ascii: "*")) == true || url.userinfo?.contains(UInt8(ascii: "*")) == true {
                problems.append("the * wildcard is only allowed in the left-most label of the host")
            }
        }
        switch kind {
        case .webOrigin:
            if !url.tail.isEmpty {
                problems.append("a web origin is scheme://host[:port] only, without a path (not even /), query or fragment")
            }
        case .logout, .callback:
            break
        }
        return problems
    }

    /// Matches `requested` against `allowed` under the rules for `kind`.
    public static func match(_ requested: String, allowed: [String], kind: ListKind, isNative: Bool) -> Match {
        let requestedBytes = Array(requested.utf8)
        let parsedRequest = URLParts(bytes: requestedBytes)
        for entry in allowed {
            let entryBytes = Array(entry.utf8)
            let matched: Bool
            switch kind {
            case .callback:
                matched = callbackMatches(entry: entryBytes, requested: requestedBytes, parsed: parsedRequest, isNative: isNative)
            case .logout:
                matched = logoutMatches(entry: entryBytes, requested: parsedRequest, isNative: isNative)
            case .webOrigin:
                matched = originMatches(entry: entryBytes, requested: parsedRequest)
            }
            if matched { return .allowed(entry: entry) }
        }
        let diagnosis = Diagnosis(requested: requestedBytes, parsed: parsedRequest, allowed: allowed, kind: kind, isNative: isNative)
        return .refused(reason: diagnosis.reason(), nearest: diagnosis.nearest)
    }

    // MARK: - The matching rules

    /// Exact bytes, or an Auth0 wildcard entry, or (native apps) RFC 8252 §7.3 loopback any-port.
    static func callbackMatches(entry: [UInt8], requested: [UInt8], parsed: URLParts?, isNative: Bool) -> Bool {
        guard let request = parsed, request.fragment == nil else { return false }
        if entry == requested { return true }
        guard let entryURL = URLParts(bytes: entry), entryURL.fragment == nil else { return false }
        if let wildcard = WildcardHost(entryURL) {
            return request.scheme == entryURL.scheme && request.hasAuthority && request.userinfo == nil
                && !request.authority.contains(UInt8(ascii: "\\"))
                && request.port == entryURL.port && request.tail == entryURL.tail
                && wildcard.matches(request.host, caseInsensitive: false)
        }
        if isNative, loopbackAnyPortMatches(entry: entryURL, request: request) { return true }
        return false
    }

    /// RFC 8252 §7.3: same `http` scheme, same loopback literal, same path and query; any port.
    static func loopbackAnyPortMatches(entry: URLParts, request: URLParts) -> Bool {
        entry.scheme == Array("http".utf8) && entry.isLoopbackLiteral && entry.userinfo == nil
            && request.scheme == entry.scheme && request.hasAuthority && request.userinfo == nil
            && request.host == entry.host
            && (request.port == nil || request.numericPort != nil)
            && request.tail == entry.tail
    }

    /// Auth0 `/v2/logout`: query and fragment ignored, scheme and host case-insensitive, path exact.
    static func logoutMatches(entry: [UInt8], requested: URLParts?, isNative: Bool) -> Bool {
        guard let request = requested, let entryURL = URLParts(bytes: entry), entryURL.fragment == nil else { return false }
        guard request.lowercasedScheme == entryURL.lowercasedScheme, request.hasAuthority == entryURL.hasAuthority,
              request.userinfo == nil, entryURL.userinfo == nil,
              !request.authority.contains(UInt8(ascii: "\\")), request.path == entryURL.path else { return false }
        let hostMatches: Bool
        if let wildcard = WildcardHost(entryURL) {
            hostMatches = wildcard.matches(request.host, caseInsensitive: true)
        } else {
            hostMatches = request.lowercasedHost == entryURL.lowercasedHost
        }
        guard hostMatches else { return false }
        if request.port == entryURL.port { return true }
        // Native apps use their callback as returnTo, so the loopback rule carries over.
        return isNative && entryURL.scheme == Array("http".utf8) && entryURL.isLoopbackLiteral
            && request.scheme == entryURL.scheme && (request.port == nil || request.numericPort != nil)
    }

    /// Web origins: scheme and host case-insensitive, default ports equal absent ones.
    static func originMatches(entry: [UInt8], requested: URLParts?) -> Bool {
        guard let request = requested, request.isWeb, request.hasAuthority, request.userinfo == nil,
              request.tail.isEmpty, !request.authority.contains(UInt8(ascii: "\\")),
              let entryURL = URLParts(bytes: entry), entryURL.isWeb, entryURL.userinfo == nil, entryURL.tail.isEmpty,
              request.lowercasedScheme == entryURL.lowercasedScheme,
              let requestPort = request.effectivePort, requestPort == entryURL.effectivePort else { return false }
        if let wildcard = WildcardHost(entryURL) { return wildcard.matches(request.host, caseInsensitive: true) }
        return request.lowercasedHost == entryURL.lowercasedHost
    }
}

/// An Auth0 wildcard host pattern: `prefix*suffix` as the left-most label, then fixed labels.
struct WildcardHost {
    let prefix: [UInt8]
    let suffix: [UInt8]
    /// The labels after the wildcard label (at least two: never directly over a TLD).
    let rest: [[UInt8]]

    /// nil unless `url` is a well-formed wildcard entry (see `problem(with:)`).
    init?(_ url: URLParts) {
        guard url.host.contains(UInt8(ascii: "*")), Self.problem(with: url) == nil,
              Array(url.schemeString.utf8).allSatisfy({ $0 != UInt8(ascii: "*") }),
              !url.tail.contains(UInt8(ascii: "*")), url.port?.contains(UInt8(ascii: "*")) != true else { return nil }
        let labels = url.hostLabels
        let first = labels[0]
        let star = first.firstIndex(of: UInt8(ascii: "*"))!
        prefix = Array(first[..<star])
        suffix = Array(first[(star + 1)...])
        rest = Array(labels.dropFirst())
    }

    /// Why `url`'s host is not a valid wildcard host, or nil when it is.
    static func problem(with url: URLParts) -> String? {
        guard url.isWeb else { return "the * wildcard is only allowed in the host of http and https URLs" }
        guard !url.isLoopbackLiteral, url.host.first != UInt8(ascii: "[") else {
            return "the * wildcard is not allowed in an IP address"
        }
        guard url.userinfo == nil else { return "userinfo (user@) is never allowed" }
        let labels = url.hostLabels
        let starCount = url.host.filter { $0 == UInt8(ascii: "*") }.count
        guard starCount == 1 else { return "only one * wildcard is allowed per URL" }
        guard labels[0].contains(UInt8(ascii: "*")) else {
            return "the * wildcard is only allowed in the left-most label of the host"
        }
        guard labels.count >= 3 else {
            return "the * wildcard cannot sit directly over a top-level domain (https://*.com is invalid)"
        }
        let first = labels[0].filter { $0 != UInt8(ascii: "*") }
        guard first.allSatisfy(ASCII.isLabelCharacter),
              labels.dropFirst().allSatisfy({ !$0.isEmpty && $0.allSatisfy(ASCII.isLabelCharacter) }) else {
            return "the host of a wildcard URL may only contain letters, digits, hyphens and dots"
        }
        if labels.dropFirst().allSatisfy({ $0.allSatisfy(ASCII.isDigit) }) {
            return "the * wildcard is not allowed in an IP address"
        }
        return nil
    }

    /// The host has exactly one label in place of the pattern's, made of letters, digits and hyphens.
    func matches(_ host: [UInt8], caseInsensitive: Bool) -> Bool {
        let labels = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Array.init)
        guard labels.count == rest.count + 1 else { return false }
        let fold: ([UInt8]) -> [UInt8] = caseInsensitive ? { $0.map(ASCII.lowercase) } : { $0 }
        for (label, expected) in zip(labels.dropFirst(), rest) where fold(label) != fold(expected) { return false }
        return firstLabelMatches(labels[0], caseInsensitive: caseInsensitive)
    }

    func firstLabelMatches(_ label: [UInt8], caseInsensitive: Bool) -> Bool {
        let fold: ([UInt8]) -> [UInt8] = caseInsensitive ? { $0.map(ASCII.lowercase) } : { $0 }
        guard label.count > prefix.count + suffix.count else { return false }
        let folded = fold(label)
        guard Array(folded.prefix(prefix.count)) == fold(prefix), Array(folded.suffix(suffix.count)) == fold(suffix) else {
            return false
        }
        return label[prefix.count..<(label.count - suffix.count)].allSatisfy(ASCII.isLabelCharacter)
    }

    var patternLabel: String { String(decoding: prefix + Array("*".utf8) + suffix, as: UTF8.self) }
}
