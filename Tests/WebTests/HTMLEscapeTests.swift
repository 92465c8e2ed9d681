import Testing
@testable import Server

@Suite struct HTMLEscapeTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("a & b", "a &amp; b"),
        ("&amp;", "&amp;amp;"),
        ("\"quoted\"", "&quot;quoted&quot;"),
        ("it's", "it&#39;s"),
        ("\" onmouseover='x'", "&quot; onmouseover=&#39;x&#39;"),
        ("héllo ✓", "héllo ✓"),
        ("", ""),
    ])
    func escapes(_ input: String, _ expected: String) {
        #expect(HTML.escape(input) == expected)
    }
}
