import Model

/// Scope values (RFC 6749 §3.3): space-delimited, case-sensitive tokens whose order carries no meaning.
public enum ScopeList {
    /// The OpenID Connect scopes Gatehouse understands without an API, in canonical order.
    public static let openIDScopes = ["openid", "profile", "email", "offline_access"]

    /// The distinct tokens of a `scope` value, in the order first seen.
    public static func tokens(_ scope: String?) -> [String] {
        guard let scope, !scope.isEmpty else { return [] }
        // RFC 6749 §3.3: scope tokens are ASCII. Split by byte then; split by Character (which
        // would treat a space followed by a combining mark as one character) only otherwise.
        guard scope.utf8.allSatisfy({ $0 < 0x80 }) else {
            var seen: Set<String> = []
            return scope.split(separator: " ", omittingEmptySubsequences: true).map(String.init).filter { seen.insert($0).inserted }
        }
        var tokens: [String] = []
        // A scope holds a handful of tokens, where a linear search beats hashing them; a long one
        // (a hostile request) is deduplicated through a set from its 16th distinct token on.
        var seen: Set<String> = []
        for token in scope.utf8.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true) {
            let text = String(Substring(token))
            if tokens.count < 16 {
                if !tokens.contains(text) { tokens.append(text) }
                if tokens.count == 16 { seen = Set(tokens) }
            } else if seen.insert(text).inserted {
                tokens.append(text)
            }
        }
        return tokens
    }

    /// What a user grant may hold (Auth0's behaviour without role-based access control): the OpenID
    /// scopes asked for, in canonical order, then the asked-for scopes that `api` defines, in the
    /// API's order. Everything else is dropped.
    public static func granted(_ requested: [String], api: API?) -> [String] {
        let asked = Set(requested)
        let standard = openIDScopes.filter(asked.contains)
        guard let api else { return standard }
        var seen = Set(standard)
        return standard + api.scopes.filter { asked.contains($0) && seen.insert($0).inserted }
    }
}
