import Testing
import OIDC

/// `trimmingWhitespace`: tabs and Unicode space separators (Zs) at both ends, never line breaks or
/// other invisible characters; ASCII and non-ASCII take different paths, so both are in the table.
@Suite struct TrimmingWhitespaceTests {
    @Test(arguments: [
        ("  a b  ", "a b"),
        ("\tx\t", "x"),
        (" \t x", "x"),
        ("\nx\n", "\nx\n"),
        ("\r\nx", "\r\nx"),
        ("\u{0B}x\u{0C}", "\u{0B}x\u{0C}"),
        ("\u{00A0}x\u{3000}", "x"),
        ("\u{2003}日本語\u{2003}", "日本語"),
        ("\u{200B}x", "\u{200B}x"),
        ("   ", ""),
        ("", ""),
        ("é", "é"),
    ])
    func trims(_ input: String, _ expected: String) {
        #expect(input.trimmingWhitespace() == expected)
        #expect(Substring(input).trimmingWhitespace() == expected)
    }
}
