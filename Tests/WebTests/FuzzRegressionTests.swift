import Testing
@testable import Server

/// Inputs scripts/fuzz found (target `cookie`), kept as regression tests. A known issue until
/// Sources/Server/Web/CookieJar.swift is fixed; the harness skips this shape meanwhile.
@Suite struct CookieJarFuzzRegressionTests {
    /// CookieJar splits on Characters, and `;` followed by a combining mark (U+0301) is one
    /// Character, so it separates nothing: the first `s` is lost and the duplicate wins, against
    /// "keeps the first of duplicate names" (RFC 6265 §5.4 splits on the byte `;`).
    @Test func semicolonBeforeACombiningMarkStillSeparates() {
        withKnownIssue("CookieJar.parse splits on Characters, not bytes") {
            #expect(CookieJar.parse("s=1;\u{301}; s=2") == ["s": "1"])
            #expect(CookieJar.parse("a=1;\u{301}b=2") == ["a": "1"])
        }
    }
}
