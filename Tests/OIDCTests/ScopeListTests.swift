import Testing
@testable import OIDC

/// `ScopeList.tokens`: the distinct space-separated tokens of a `scope` value (RFC 6749 §3.3), in
/// the order first seen.
@Suite struct ScopeListTests {
    @Test(arguments: [
        (nil, []),
        ("", []),
        ("   ", []),
        ("openid", ["openid"]),
        ("openid profile email offline_access", ["openid", "profile", "email", "offline_access"]),
        ("  openid   profile ", ["openid", "profile"]),
        ("openid openid profile openid", ["openid", "profile"]),
        ("read:things write:things read:things", ["read:things", "write:things"]),
        // Only the space separates (RFC 6749 §3.3): a tab is part of a token.
        ("openid\tprofile", ["openid\tprofile"]),
        ("é openid é", ["é", "openid"]),
        // Outside ASCII the value is read by Character: a space followed by a combining mark is
        // one character, not a separator.
        ("a \u{301}b c", ["a \u{301}b", "c"]),
    ] as [(String?, [String])])
    func tokens(scope: String?, expected: [String]) {
        #expect(ScopeList.tokens(scope) == expected)
    }

    /// Past the short-list search, duplicates are still dropped and the order kept.
    @Test(arguments: [15, 16, 17, 40, 5_000])
    func manyTokensStayDistinctInOrder(count: Int) {
        let names = (0..<count).map { "scope\($0)" }
        let scope = (names + names.reversed() + names).joined(separator: " ")
        #expect(ScopeList.tokens(scope) == names)
    }
}
