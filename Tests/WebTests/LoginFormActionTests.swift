import HTTP
import Settings
import Testing
@testable import Server

/// Browsers apply `form-action` to the redirects after the login POST, so the page must allow
/// the app's callback — and nothing else beyond itself.
@Suite struct LoginFormActionTests {
    let issuer = try! Issuer.parse("https://id.example.com/").get()

    @Test(arguments: [
        ("https://app.example.com/callback?x=1", "https://app.example.com"),
        ("http://127.0.0.1:51004/callback", "http://127.0.0.1:51004"),
        ("com.example.app://id.example.com/ios/com.example.app/callback", "com.example.app:"),
    ])
    func theCallbackIsAllowedAsAFormTarget(redirectURI: String, source: String) throws {
        let page = LoginPage.render(appName: "App", issuer: issuer, transactionID: "tx", csrfToken: "csrf", redirectURI: redirectURI)
        let policy = try #require(page.headers["Content-Security-Policy"])
        #expect(policy.contains("form-action 'self' \(source)"))
        #expect(policy.contains("frame-ancestors 'none'"))
    }

    @Test func withoutACallbackOnlyTheIssuerIsAllowed() throws {
        let page = LoginPage.render(appName: "App", issuer: issuer, transactionID: "tx", csrfToken: "csrf")
        #expect(page.headers["Content-Security-Policy"]?.contains("form-action 'self';") == true)
    }
}
