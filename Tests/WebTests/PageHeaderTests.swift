import HTTP
import Testing
@testable import Server

/// H01, H02, H03 on every page renderer.
@Suite struct PageHeaderTests {
    static let names = Fixtures.pages.map(\.0)

    static func page(_ name: String) -> HTTPResponse { Fixtures.pages.first { $0.0 == name }!.1 }

    @Test(arguments: names)
    func carriesTheBrowserHardeningHeaders(_ name: String) throws {
        let headers = Self.page(name).headers
        #expect(headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(headers["X-Frame-Options"] == "DENY")
        #expect(headers["X-Content-Type-Options"] == "nosniff")
        #expect(headers["Referrer-Policy"] == "no-referrer")
        #expect(headers["Cache-Control"] == "no-store")
        #expect(headers["Cross-Origin-Opener-Policy"] == "same-origin")
        let csp = try #require(headers["Content-Security-Policy"])
        for directive in ["default-src 'none'", "style-src 'self'", "script-src 'self'", "img-src 'self' data:",
                          "frame-ancestors 'none'", "base-uri 'none'"] {
            #expect(csp.contains(directive + ";") || csp.hasSuffix(directive), "\(directive) in \(csp)")
        }
        #expect(csp.contains("form-action 'self'"))
        #expect(!csp.contains("unsafe"))
        #expect(headers.values("Content-Security-Policy").count == 1)
        #expect(headers["Access-Control-Allow-Origin"] == nil)  // H05
    }

    @Test(arguments: names)
    func isSelfContainedHTML5(_ name: String) {
        let html = Fixtures.text(Self.page(name))
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(html.contains(#"<meta name="viewport" content="width=device-width, initial-scale=1">"#))
        #expect(!html.contains("style="))
        #expect(!html.contains("<script>"))  // No inline script; only src= from our issuer.
        // No third-party resources: every src/href points at the issuer.
        for attribute in ["src=\"", "href=\""] {
            var rest = Substring(html)
            while let range = rest.range(of: attribute) {
                rest = rest[range.upperBound...]
                #expect(rest.hasPrefix("https://id.example.com/auth/"), "\(name): \(rest.prefix(60))")
            }
        }
    }

    @Test func errorPageEscapesAndNeverRedirects() {
        let response = ErrorPage.render(title: "<b>Bad</b>", message: "callback <script>x</script>", status: 400)
        let html = Fixtures.text(response)
        #expect(response.status == 400)
        #expect(response.headers["Location"] == nil)
        #expect(html.contains("<h1>&lt;b&gt;Bad&lt;/b&gt;</h1>"))
        #expect(html.contains("<p class=\"error\" role=\"alert\">callback &lt;script&gt;x&lt;/script&gt;</p>"))
    }

    @Test func logoutConfirmPostsHiddenFieldsWithCSRF() {
        let response = LogoutConfirmPage.render(issuer: Fixtures.httpsIssuer, csrfToken: "tok",
                                                fields: [("post_logout_redirect_uri", "https://app/?a=1&b=\"2\""), ("state", "s")],
                                                appName: "<Notes>")
        let html = Fixtures.text(response)
        #expect(html.contains("<h1>Sign out of &lt;Notes&gt;?</h1>"))
        #expect(html.contains(#"<form method="post" action="https://id.example.com/auth/oidc/logout" class="logout-form">"#))
        #expect(html.contains(#"<input type="hidden" name="csrf_token" value="tok">"#))
        #expect(html.contains(#"<input type="hidden" name="post_logout_redirect_uri" value="https://app/?a=1&amp;b=&quot;2&quot;">"#))
        #expect(html.contains(#"name="action" value="logout""#) && html.contains(#"name="action" value="cancel""#))
    }

    @Test func signedOutPageNamesTheAppEscaped() {
        let html = Fixtures.text(SignedOutPage.render(issuer: Fixtures.httpsIssuer, appName: "<i>x</i>"))
        #expect(html.contains("You have signed out of &lt;i&gt;x&lt;/i&gt;."))
        #expect(Fixtures.text(SignedOutPage.render(issuer: Fixtures.httpsIssuer)).contains("You have signed out."))
    }

    @Test func securityHeadersOnAnyResponseAndExtraFormActionSources() {
        var response = HTTPResponse.json([])
        SecurityHeaders.apply(to: &response, formAction: ["https://a.example", "bad source; script-src *", "com.app:"])
        let csp = response.headers["Content-Security-Policy"]!
        #expect(csp.contains("form-action 'self' https://a.example com.app:; "))
        #expect(!csp.contains("bad"))
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
    }

    /// H03 for JSON answers with secrets.
    @Test func noStoreForJSON() {
        var response = HTTPResponse.json(Array("{}".utf8))
        SecurityHeaders.noStore(&response)
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["Pragma"] == "no-cache")
        #expect(response.headers["Content-Type"] == "application/json")
    }
}
