import Testing
@testable import Server

/// Inputs scripts/fuzz found (target `cookie`), kept as regression tests. Each failed before its fix.
@Suite struct CookieJarFuzzRegressionTests {
    /// CookieJar splits on Characters, and `;` followed by a combining mark (U+0301) is one
    /// Character, so it separates nothing: the first `s` is lost and the duplicate wins, against
    /// "keeps the first of duplicate names" (RFC 6265 §5.4 splits on the byte `;`).
    @Test func semicolonBeforeACombiningMarkStillSeparates() {
        #expect(CookieJar.parse("s=1;\u{301}; s=2") == ["s": "1"])
        #expect(CookieJar.parse("a=1;\u{301}b=2") == ["a": "1"])
    }

    /// Character `==` is canonical equivalence, and U+037E GREEK QUESTION MARK is canonically
    /// ";", so it splits a cookie. A cookie set on a parent domain with such a value smuggles
    /// in a `__Host-` cookie that wins over the real one (found by the 10-minute run).
    @Test func greekQuestionMarkIsNoSeparator() {
        let header = "x=1\u{37E}__Host-gatehouse_session=evil; __Host-gatehouse_session=real"
        #expect(CookieJar.parse(header) == ["__Host-gatehouse_session": "real"])
    }
}
