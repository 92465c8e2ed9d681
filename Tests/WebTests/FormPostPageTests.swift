import OIDC
import Testing
@testable import Server

@Suite struct FormPostPageTests {
    @Test func autoSubmitsEscapedFieldsToTheTargetWithItsOriginInFormAction() throws {
        let response = FormPostPage.render(issuer: Fixtures.httpsIssuer, action: "https://App.example.org:443/cb?x=1&y=2",
                                           fields: [("code", "a\"b<c>"), ("state", "s&t'")])
        let html = Fixtures.text(response)
        #expect(response.status == 200)
        #expect(html.contains(#"<form method="post" action="https://App.example.org:443/cb?x=1&amp;y=2" class="form-post">"#))
        #expect(html.contains(#"<input type="hidden" name="code" value="a&quot;b&lt;c&gt;">"#))
        #expect(html.contains(#"<input type="hidden" name="state" value="s&amp;t&#39;">"#))
        #expect(html.contains(#"<script src="https://id.example.com/auth/assets/form-post.js" defer></script>"#))
        #expect(Fixtures.count("<script", in: html) == 1)
        #expect(html.contains(#"<button type="submit" class="button primary">Continue</button>"#))
        let csp = try #require(response.headers["Content-Security-Policy"])
        #expect(csp.contains("form-action 'self' https://app.example.org; "))
        #expect(csp.contains("script-src 'self'"))
    }

    @Test(arguments: [
        ("https://app.example.org/cb", "https://app.example.org"),
        ("http://localhost:3000/callback", "http://localhost:3000"),
        ("HTTPS://APP.EXAMPLE.ORG:8443/x#f", "https://app.example.org:8443"),
        ("com.example.app://id.example.com/ios/com.example.app/callback", "com.example.app:"),
    ])
    func formActionSource(_ action: String, _ expected: String) {
        #expect(WebOrigin.cspSource(forAction: action) == expected)
    }

    @Test(arguments: ["not a url", "https://a b/", "https://evil.example;script-src/", "javascript alert(1)"])
    func unusableTargetsAddNoSource(_ action: String) {
        let response = FormPostPage.render(issuer: Fixtures.httpsIssuer, action: action, fields: [])
        #expect(response.headers["Content-Security-Policy"]!.contains("form-action 'self'; "))
    }
}
