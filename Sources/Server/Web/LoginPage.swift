import HTTP
import OIDC
import Settings

/// The sign-in form served by `{issuer}authorize`; its markup is a contract with browser and conformance tests.
enum LoginPage {
    /// - Parameters:
    ///   - appName: the client's display name ("Sign in to continue to {App}").
    ///   - transactionID: the login transaction, posted back as `tx`.
    ///   - csrfToken: the raw token whose SHA-256 the transaction stores, posted back as `csrf_token`.
    ///   - email: pre-fill (from `login_hint`, or what the user typed before an error).
    ///   - errorMessage: shown in `<p class="error" role="alert">`, e.g. "Wrong email or password.".
    /// - Parameter redirectURI: the validated callback the sign-in ends on. Browsers apply the
    ///   CSP `form-action` to every redirect after the form is posted (POST → 303 → 302 to the
    ///   app), so the callback's origin or custom scheme must be allowed too.
    static func render(appName: String, issuer: Issuer, transactionID: String, csrfToken: String,
                       email: String? = nil, errorMessage: String? = nil, status: Int = 200,
                       redirectURI: String? = nil) -> HTTPResponse {
        let emailValue = email.map { $0.isEmpty ? "" : " value=\"\(HTML.escape($0))\"" } ?? ""
        var body = """
        <h1>Sign in</h1>
        <p class="subtitle">Sign in to continue to \(HTML.escape(appName))</p>

        """
        body += PageLayout.errorParagraph(errorMessage)
        body += "<form method=\"post\" action=\"\(HTML.escape(issuer.endpoint("login")))\" class=\"login-form\">\n"
        body += PageLayout.hidden("tx", transactionID)
        body += PageLayout.hidden("csrf_token", csrfToken)
        body += """
        <label for="email">Email</label>
        <input type="email" name="email" id="email" autocomplete="username" required autofocus\(emailValue)>
        <label for="password">Password</label>
        <input type="password" name="password" id="password" autocomplete="current-password" required>
        <div class="actions">
        <button type="submit" name="action" value="login" class="button primary">Continue</button>
        <button type="submit" name="action" value="cancel" class="button secondary" formnovalidate>Cancel</button>
        </div>
        </form>

        """
        let html = PageLayout.document(title: "Sign in to \(appName)", issuer: issuer, body: body)
        let formAction = redirectURI.flatMap(WebOrigin.cspSource(forAction:)).map { [$0] } ?? []
        return PageLayout.response(html, status: status, formAction: formAction)
    }

    /// The flow's login screen; a new transaction's cookie is set with it.
    static func render(_ screen: LoginScreen, issuer: Issuer, cookies: CookieSpec, status: Int = 200) -> HTTPResponse {
        var response = render(appName: screen.appName, issuer: issuer, transactionID: screen.transactionID, csrfToken: screen.csrfToken,
                              email: screen.email, errorMessage: screen.errorMessage, status: status, redirectURI: screen.redirectURI)
        if let maxAge = screen.newTransactionMaxAge, let sealed = screen.transactionCookie {
            for cookie in cookies.setTransaction(sealed, maxAge: maxAge) { response.headers.add("Set-Cookie", cookie) }
        }
        return response
    }
}
