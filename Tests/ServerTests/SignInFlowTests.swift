import Foundation
import Testing
import TestSupport

/// The browser and token-endpoint halves of sign-in, against the real daemon.
@Suite struct SignInFlowTests {
    @Test func aNativeAppSignsInWithPKCEAndGetsVerifiedTokens() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        let userID = try fixture.createUser()
        let browser = Browser(directory: fixture.daemon.directory)
        let callback = try fixture.signIn(browser, clientID: app.clientID)
        #expect(callback.hasPrefix("com.example.app://127.0.0.1/ios/com.example.app/callback?"))
        let query = queryParameters(of: callback)
        #expect(query["state"] == "state-123")
        #expect(query["iss"] == fixture.issuer)
        let code = try #require(query["code"])
        #expect(code.count >= 43)

        let token = try fixture.redeem(code: code, clientID: app.clientID)
        #expect(token.status == 200, "\(token.text)")
        #expect(token.headers["cache-control"] == "no-store")
        let body = try token.json()
        #expect(body["token_type"] as? String == "Bearer")
        #expect(body["expires_in"] is Int)
        #expect(body["scope"] as? String == "openid profile email")
        let idToken = try SignInFixture.claims(of: try #require(body["id_token"] as? String))
        #expect(idToken["iss"] as? String == fixture.issuer)
        #expect(idToken["sub"] as? String == userID)
        #expect(idToken["aud"] as? String == app.clientID)
        #expect(idToken["nonce"] as? String == "nonce-456")
        #expect(idToken["email"] as? String == "alice@example.com")
        #expect(idToken["auth_time"] is Int && idToken["sid"] is String)

        let accessToken = try #require(body["access_token"] as? String)
        let userinfo = try Curl.get(fixture.issuer + "userinfo", ["-H", "Authorization: bearer \(accessToken)"])
        #expect(userinfo.status == 200)
        #expect(try userinfo.json()["sub"] as? String == userID)
        #expect(userinfo.headers["cache-control"] == "no-store")
    }

    @Test func aSecondAppInTheSameBrowserSignsInWithoutTheForm() throws {
        let fixture = try SignInFixture()
        let first = try fixture.createApp()
        let second = try fixture.createApp()
        try fixture.createUser()
        let browser = Browser(directory: fixture.daemon.directory)
        _ = try fixture.signIn(browser, clientID: first.clientID)
        let sso = try browser.get(fixture.authorizeURL(clientID: second.clientID))
        #expect(sso.status == 302)
        #expect(queryParameters(of: try #require(sso.headers["location"]))["code"] != nil)
        // prompt=login forces the form again; prompt=none completes silently.
        #expect(try browser.get(fixture.authorizeURL(clientID: second.clientID, extra: [("prompt", "login")])).status == 200)
        #expect(try browser.get(fixture.authorizeURL(clientID: second.clientID, extra: [("prompt", "none")])).status == 302)
    }

    /// F01: prompt=none without a session redirects with login_required, state and iss.
    @Test func promptNoneWithoutASessionIsLoginRequired() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        let response = try Browser(directory: fixture.daemon.directory).get(fixture.authorizeURL(clientID: app.clientID, extra: [("prompt", "none")]))
        #expect(response.status == 302)
        let query = queryParameters(of: try #require(response.headers["location"]))
        #expect(query["error"] == "login_required")
        #expect(query["state"] == "state-123")
        #expect(query["iss"] == fixture.issuer)
        #expect(query["code"] == nil)
    }

    /// A01/A04: a callback not on the allow-list, or an unknown client, gets a page and never a redirect.
    @Test(arguments: ["com.example.app://127.0.0.1/ios/com.example.app/callback/", "com.evil.app://127.0.0.1/ios/com.example.app/callback",
                      "https://evil.example/callback"])
    func aDisallowedCallbackGetsAnErrorPageAndNoRedirect(redirectURI: String) throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        let response = try Browser(directory: fixture.daemon.directory).get(fixture.authorizeURL(clientID: app.clientID, redirectURI: redirectURI))
        #expect(response.status == 400)
        #expect(response.headers["location"] == nil)
        #expect(response.headers["content-type"] == "text/html; charset=utf-8")
        #expect(!response.text.contains("code="))
        // The operator learns exactly why, and which entry was nearest; the user does not.
        #expect(fixture.daemon.standardError.contains("nearest allowed callback: com.example.app://127.0.0.1/ios/com.example.app/callback"))
        #expect(!response.text.contains("nearest"))
        let unknown = try Browser(directory: fixture.daemon.directory).get(fixture.authorizeURL(clientID: "no-such-client"))
        #expect(unknown.status == 400)
        #expect(unknown.headers["location"] == nil)
    }

    /// G07: wrong password and unknown email look the same; no session cookie is set.
    @Test func wrongCredentialsGetOneGenericAnswer() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        let browser = Browser(directory: fixture.daemon.directory)
        let page = try browser.get(fixture.authorizeURL(clientID: app.clientID))
        let wrongPassword = try fixture.submitLogin(browser, page: page, password: "not the password")
        let unknownEmail = try fixture.submitLogin(browser, page: page, email: "nobody@example.com")
        for response in [wrongPassword, unknownEmail] {
            #expect(response.status == 401)
            // Next to the password field, which has the focus (the email is kept).
            #expect(response.text.contains(#"<p class="error field-error" id="password-error" role="alert">Wrong email or password.</p>"#))
            #expect(response.text.contains(#"autocomplete="current-password" required autofocus aria-invalid="true""#))
        }
        #expect(browser.cookies["gatehouse_session"] == nil)
    }

    /// G01: a missing or foreign CSRF token is refused with 403 and no session.
    @Test(arguments: ["", "forged-token-value"])
    func aBadCSRFTokenIsRefused(token: String) throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        let browser = Browser(directory: fixture.daemon.directory)
        let page = try browser.get(fixture.authorizeURL(clientID: app.clientID))
        let response = try fixture.submitLogin(browser, page: page, csrf: token)
        #expect(response.status == 403)
        #expect(browser.cookies["gatehouse_session"] == nil)
    }

    /// G14: a form posted without the transaction cookie (expired, other browser) gets a restart page.
    @Test func aFormWithoutItsTransactionCookieGetsARestartPage() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        let page = try Browser(directory: fixture.daemon.directory).get(fixture.authorizeURL(clientID: app.clientID))
        let otherBrowser = Browser(directory: fixture.daemon.directory)
        let response = try fixture.submitLogin(otherBrowser, page: page)
        #expect(response.status == 400)
        #expect(response.text.contains("Sign-in expired"))
    }

    /// G11/G12: login answers 303 to the internal continuation and issues a new session cookie each time.
    @Test func loginIssuesAFreshSessionCookieAndA303ToTheContinuation() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        let browser = Browser(directory: fixture.daemon.directory)
        let page = try browser.get(fixture.authorizeURL(clientID: app.clientID))
        let posted = try fixture.submitLogin(browser, page: page)
        #expect(posted.status == 303)
        #expect(posted.headers["location"]?.hasPrefix(fixture.issuer + "authorize/resume?tx=") == true)
        let first = try #require(browser.cookies["gatehouse_session"])
        let again = try fixture.submitLogin(browser, page: try browser.get(fixture.authorizeURL(clientID: app.clientID, extra: [("prompt", "login")])))
        #expect(again.status == 303)
        #expect(try #require(browser.cookies["gatehouse_session"]) != first)
    }

    /// A20: Cancel sends access_denied with state and iss.
    @Test func cancelReturnsAccessDenied() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        let browser = Browser(directory: fixture.daemon.directory)
        let page = try browser.get(fixture.authorizeURL(clientID: app.clientID))
        let response = try fixture.submitLogin(browser, page: page, action: "cancel")
        #expect(response.status == 302)
        let query = queryParameters(of: try #require(response.headers["location"]))
        #expect(query["error"] == "access_denied")
        #expect(query["state"] == "state-123")
        #expect(query["iss"] == fixture.issuer)
    }

    /// H01–H03, H05, G13 on the login page.
    @Test func theLoginPageIsLockedDownAndEscapesInput() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        let page = try Browser(directory: fixture.daemon.directory).get(
            fixture.authorizeURL(clientID: app.clientID, extra: [("login_hint", "\"><script>alert(1)</script>")]),
            headers: ["Origin: https://evil.example"])
        #expect(page.status == 200)
        #expect(page.headers["x-frame-options"] == "DENY")
        #expect(page.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(page.headers["x-content-type-options"] == "nosniff")
        #expect(page.headers["referrer-policy"] == "no-referrer")
        #expect(page.headers["cache-control"] == "no-store")
        #expect(page.headers["access-control-allow-origin"] == nil)
        #expect(!page.text.contains("<script>alert(1)</script>"))
        #expect(page.text.contains("&lt;script&gt;"))
        #expect(page.headers["set-cookie"]?.contains("HttpOnly") == true)
        #expect(page.headers["set-cookie"]?.contains("SameSite=Lax") == true)
    }

    /// C01: a replayed code fails and revokes what the first redemption issued.
    @Test func aReplayedCodeFailsAndRevokesItsTokens() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        let code = try #require(queryParameters(of: try fixture.signIn(Browser(directory: fixture.daemon.directory), clientID: app.clientID))["code"])
        let first = try fixture.redeem(code: code, clientID: app.clientID)
        let accessToken = try #require(try first.json()["access_token"] as? String)
        #expect(try Curl.get(fixture.issuer + "userinfo", ["-H", "Authorization: Bearer \(accessToken)"]).status == 200)
        let replay = try fixture.redeem(code: code, clientID: app.clientID)
        #expect(replay.status == 400)
        #expect(try replay.json()["error"] as? String == "invalid_grant")
        let after = try Curl.get(fixture.issuer + "userinfo", ["-H", "Authorization: Bearer \(accessToken)"])
        #expect(after.status == 401)
        #expect(after.headers["www-authenticate"]?.contains("error=\"invalid_token\"") == true)
    }

    /// B05: a wrong verifier burns the code.
    @Test func aWrongVerifierIsInvalidGrantAndBurnsTheCode() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        let code = try #require(queryParameters(of: try fixture.signIn(Browser(directory: fixture.daemon.directory), clientID: app.clientID))["code"])
        let wrong = try fixture.redeem(code: code, clientID: app.clientID, verifier: String(repeating: "a", count: 43))
        #expect(wrong.status == 400)
        #expect(try wrong.json()["error"] as? String == "invalid_grant")
        #expect(try fixture.redeem(code: code, clientID: app.clientID).status == 400)
    }

    /// C08, C09, C12: method, parameter placement, client authentication, and JSON errors.
    @Test func theTokenEndpointRefusesBadShapesWithJSON() throws {
        let fixture = try SignInFixture()
        let web = try fixture.createApp("regular", callbacks: ["https://web.example/callback"])
        let url = fixture.issuer + "oauth/token"
        #expect(try Curl.get(url).status == 405)
        let queryParameters = try Curl.get(url + "?grant_type=authorization_code", ["-d", "code=x"])
        #expect(queryParameters.status == 400)
        #expect(try queryParameters.json()["error"] as? String == "invalid_request")

        let wrongSecret = try Curl.get(url, ["-u", "\(web.clientID):wrong", "-d", "grant_type=authorization_code&code=x&redirect_uri=https://web.example/callback"])
        let unknownClient = try Curl.get(url, ["-u", "unknown:wrong", "-d", "grant_type=authorization_code&code=x&redirect_uri=https://web.example/callback"])
        for response in [wrongSecret, unknownClient] {
            #expect(response.status == 401)
            #expect(response.headers["www-authenticate"]?.hasPrefix("Basic") == true)
            #expect(response.headers["cache-control"] == "no-store")
            #expect(response.headers["content-type"] == "application/json")
        }
        #expect(wrongSecret.body == unknownClient.body)
        let unsupported = try Curl.get(url, ["-u", "\(web.clientID):\(web.secret!)", "-d", "grant_type=urn:example:unknown"])
        #expect(try unsupported.json()["error"] as? String == "unsupported_grant_type")
    }

    @Test func corsOnTheTokenEndpointAnswersOnlyTheAppsWebOrigins() throws {
        let fixture = try SignInFixture()
        let spa = try fixture.createApp("spa", callbacks: ["https://spa.example/callback"], extra: ["--web-origins", "https://spa.example"])
        let url = fixture.issuer + "oauth/token"
        let allowed = try Curl.get(url, ["-H", "Origin: https://spa.example", "-d", "grant_type=authorization_code&code=x&client_id=\(spa.clientID)"])
        #expect(allowed.headers["access-control-allow-origin"] == "https://spa.example")
        let other = try Curl.get(url, ["-H", "Origin: https://evil.example", "-d", "grant_type=authorization_code&code=x&client_id=\(spa.clientID)"])
        #expect(other.headers["access-control-allow-origin"] == nil)
        let preflight = try Curl.get(url, ["-X", "OPTIONS", "-H", "Origin: https://spa.example", "-H", "Access-Control-Request-Method: POST",
                                           "-H", "Access-Control-Request-Headers: auth0-client, content-type"])
        #expect(preflight.status == 204)
        #expect(preflight.headers["access-control-allow-headers"]?.contains("Auth0-Client") == true)
    }

    @Test func appleAppSiteAssociationListsNativeApps() throws {
        let fixture = try SignInFixture()
        _ = try fixture.createApp(extra: ["--apple-team-id", "ABCDE12345", "--bundle-id", "com.example.app"])
        let response = try Curl.get(fixture.issuer + ".well-known/apple-app-site-association")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.text.contains("ABCDE12345.com.example.app"))
    }
}
