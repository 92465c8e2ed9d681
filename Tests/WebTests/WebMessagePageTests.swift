import HTTP
import OIDC
import Testing
@testable import Server

/// `response_mode=web_message`: the page's data, its framing and opener headers, and its script.
@Suite struct WebMessagePageTests {
    static let english = PageText.shipped.language(["en"])

    static func page(origin: String = "https://app.example.org", fields: [(String, String)] = [("code", "c<1>"), ("state", "s\"2")])
        -> HTTPResponse {
        WebMessagePage.render(issuer: Fixtures.httpsIssuer, origin: origin, fields: fields, language: english)
    }

    @Test func carriesTheResponseAsEscapedHiddenFieldsForOneOrigin() {
        let html = Fixtures.text(Self.page())
        #expect(html.contains("<form id=\"authorization-response\" data-target-origin=\"https://app.example.org\" hidden>"))
        #expect(html.contains("<input type=\"hidden\" name=\"code\" value=\"c&lt;1&gt;\">"))
        #expect(html.contains("<input type=\"hidden\" name=\"state\" value=\"s&quot;2\">"))
        #expect(html.contains("<script src=\"https://id.example.com/auth/assets/web-message.js\" defer></script>"))
        #expect(!html.contains("<script>"))
    }

    /// Framable by exactly the app's origin, with no X-Frame-Options (it cannot name an origin), and
    /// no COOP same-origin, which would cut a popup off from its opener.
    @Test func framingAndOpenerAreOpenToTheOriginOnly() throws {
        let headers = Self.page().headers
        let csp = try #require(headers["Content-Security-Policy"])
        #expect(csp.contains("frame-ancestors https://app.example.org; "))
        #expect(csp.contains("script-src 'self'") && csp.contains("default-src 'none'"))
        #expect(headers["X-Frame-Options"] == nil)
        #expect(headers["Cross-Origin-Opener-Policy"] == "unsafe-none")
        #expect(headers["Cache-Control"] == "no-store")
    }

    /// An origin that could break out of the directive is never inserted: the page then frames nowhere.
    @Test(arguments: ["https://a.example.org; script-src *", "*", "https://a.example.org 'unsafe-inline'", ""])
    func unsafeOriginsFallBackToNoFraming(_ origin: String) throws {
        let csp = try #require(Self.page(origin: origin).headers["Content-Security-Policy"])
        #expect(csp.contains("frame-ancestors 'none'"), "\(csp)")
        #expect(!csp.contains("unsafe") && !csp.contains("*"))
    }

    /// Every other page still refuses framing and keeps COOP same-origin.
    @Test(arguments: Fixtures.pages.map(\.0))
    func otherPagesStayUnframable(_ name: String) throws {
        let headers = try #require(Fixtures.pages.first { $0.0 == name }).1.headers
        #expect(headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(headers["X-Frame-Options"] == "DENY")
    }

    /// The script posts `{type: "authorization_response", response}` to the opener or parent with the
    /// page's origin, and never to `*`; it is served by the issuer.
    @Test func scriptPostsToTheOpenerOrParentWithTheExactOrigin() throws {
        let script = WebMessageScript.text
        #expect(script.contains("window.opener || (window.parent !== window ? window.parent : null)"))
        #expect(script.contains("target.postMessage({ type: \"authorization_response\", response: response }, origin);"))
        #expect(script.contains("origin === \"*\""))
        let asset = try #require(StaticAssets.response(for: StaticAssets.webMessageScriptPath))
        #expect(asset.status == 200 && asset.headers["Content-Type"] == "text/javascript; charset=utf-8")
    }

    /// The page is in the user's language.
    @Test func speaksTheUsersLanguage() {
        let html = Fixtures.text(WebMessagePage.render(issuer: Fixtures.httpsIssuer, origin: "https://a.example.org", fields: [],
                                                       language: PageText.shipped.language(["ja"])))
        #expect(html.contains("<html lang=\"ja\">") && html.contains("アプリに戻ります"))
    }
}
