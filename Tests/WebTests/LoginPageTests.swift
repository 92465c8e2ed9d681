import HTTP
import Testing
@testable import Server

@Suite struct LoginPageTests {
    static let page = LoginPage.render(appName: "Notes", issuer: Fixtures.httpsIssuer, transactionID: "tx-123",
                                       csrfToken: "csrf-abc", email: "ana@example.com", errorMessage: "Wrong email or password.",
                                       status: 401)

    /// The markup the browser tests and the conformance suite drive.
    @Test func containsExactlyTheContractsForm() {
        let html = Fixtures.text(Self.page)
        #expect(Self.page.status == 401)
        #expect(Fixtures.count("<form", in: html) == 1)
        #expect(html.contains(#"<form method="post" action="https://id.example.com/auth/login" class="login-form">"#))
        #expect(html.contains(#"<input type="hidden" name="tx" value="tx-123">"#))
        #expect(html.contains(#"<input type="hidden" name="csrf_token" value="csrf-abc">"#))
        // The email is known, so the focus is on the password.
        #expect(html.contains(#"<input type="email" name="email" id="email" autocomplete="username" required value="ana@example.com">"#))
        #expect(html.contains(#"<input type="password" name="password" id="password" autocomplete="current-password" required autofocus>"#))
        #expect(html.contains(#"<button type="submit" name="action" value="login" class="button primary">Continue</button>"#))
        #expect(html.contains(#"<button type="submit" name="action" value="cancel" class="button secondary" formnovalidate>Cancel</button>"#))
        #expect(html.contains(#"<p class="error" role="alert">Wrong email or password.</p>"#))
        #expect(html.contains("Sign in to continue to Notes"))
        // Enter submits the first button: login must come before cancel.
        #expect(html.range(of: "value=\"login\"")!.lowerBound < html.range(of: "value=\"cancel\"")!.lowerBound)
        #expect(Fixtures.count("<input", in: html) == 4)
        #expect(Fixtures.count("<button", in: html) == 2)
    }

    @Test func isAnAccessibleMobileHTML5Document() {
        let html = Fixtures.text(Self.page)
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(html.contains(#"<meta name="viewport" content="width=device-width, initial-scale=1">"#))
        #expect(html.contains(#"<meta charset="utf-8">"#))
        #expect(html.contains(#"<link rel="stylesheet" href="https://id.example.com/auth/assets/gatehouse.css">"#))
        #expect(html.contains(#"<label for="email">"#) && html.contains(#"<label for="password">"#))
        #expect(!html.contains("<script"))  // The login page works without JavaScript.
        #expect(!html.contains("style="))  // CSP style-src 'self' forbids inline styles.
    }

    @Test func noErrorParagraphOrPrefillWhenNotGiven() {
        let html = Fixtures.text(LoginPage.render(appName: "Notes", issuer: Fixtures.httpsIssuer, transactionID: "t",
                                                  csrfToken: "c", email: nil, errorMessage: nil, status: 200))
        #expect(!html.contains("class=\"error\""))
        #expect(html.contains(#"required autofocus>"#))
    }

    /// G13: `<script>` in the client name, login_hint and error message is escaped, in text and attributes.
    @Test(arguments: ["<script>alert(1)</script>", "\"><script>alert(1)</script>", "'><img src=x onerror=alert(1)>"])
    func escapesInjectedMarkup(_ payload: String) {
        let response = LoginPage.render(appName: payload, issuer: Fixtures.httpsIssuer, transactionID: payload,
                                         csrfToken: payload, email: payload, errorMessage: payload, status: 200)
        let html = Fixtures.text(response)
        #expect(!html.contains(payload))
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(html.contains("Sign in to continue to " + HTML.escape(payload)))
        #expect(html.contains("value=\"\(HTML.escape(payload))\""))
        #expect(html.contains("<p class=\"error\" role=\"alert\">\(HTML.escape(payload))</p>"))
        #expect(html.contains("<title>Sign in to \(HTML.escape(payload))</title>"))
    }
}
