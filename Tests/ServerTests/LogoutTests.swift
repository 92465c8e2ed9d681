import Foundation
import Testing
import TestSupport

/// /v2/logout and /oidc/logout against the real daemon (negative tests F07–F13).
@Suite struct LogoutTests {
    static let bye = "https://app.example.com/bye"
    static let logoutURLs = ["--logout-urls", bye]

    struct SignedIn {
        let fixture: SignInFixture
        let clientID: String
        let browser: Browser
        let idToken: String
    }

    static func signIn() throws -> SignedIn {
        let fixture = try SignInFixture()
        let app = try fixture.createApp(extra: logoutURLs)
        try fixture.createUser()
        let browser = Browser(directory: fixture.daemon.directory)
        let code = try #require(queryParameters(of: try fixture.signIn(browser, clientID: app.clientID))["code"])
        let body = try fixture.redeem(code: code, clientID: app.clientID).json()
        return SignedIn(fixture: fixture, clientID: app.clientID, browser: browser, idToken: try #require(body["id_token"] as? String))
    }

    /// prompt=none: a code while signed in, login_required after logout.
    static func silentAuthorization(_ signedIn: SignedIn, browser: Browser? = nil) throws -> [String: String] {
        let response = try (browser ?? signedIn.browser).get(signedIn.fixture.authorizeURL(clientID: signedIn.clientID, extra: [("prompt", "none")]))
        #expect(response.status == 302)
        return queryParameters(of: try #require(response.headers["location"]))
    }

    @Test func v2LogoutRefusesAReturnToNotAllowedAndKeepsTheSession() throws {
        let signedIn = try Self.signIn()
        let url = signedIn.fixture.issuer + "v2/logout?client_id=\(signedIn.clientID)&returnTo=" + AuthorizationQuery.encode("https://evil.example.com/bye")
        let refused = try signedIn.browser.get(url)
        #expect(refused.status == 400)
        #expect(refused.headers["location"] == nil)
        #expect(refused.text.contains("has not registered. You are still signed in."))
        #expect(refused.text.contains("<code>logout_url_not_allowed</code>"))
        #expect(try Self.silentAuthorization(signedIn)["code"] != nil)
    }

    @Test func v2LogoutEndsTheSessionAndRedirectsToReturnToWithItsQuery() throws {
        let signedIn = try Self.signIn()
        let returnTo = Self.bye + "?from=app"
        let url = signedIn.fixture.issuer + "v2/logout?federated&returnTo=" + AuthorizationQuery.encode(returnTo) + "&client_id=\(signedIn.clientID)"
        let response = try signedIn.browser.get(url)
        #expect(response.status == 302)
        #expect(response.headers["location"] == returnTo)
        #expect(try Self.silentAuthorization(signedIn)["error"] == "login_required")
        // Neither client_id nor returnTo: the signed-out page.
        let plain = try signedIn.browser.get(signedIn.fixture.issuer + "v2/logout")
        #expect(plain.status == 200)
        #expect(plain.text.contains("Signed out"))
    }

    /// F11 and F13: a valid hint with state ends the session at once; the old cookie is dead.
    @Test func oidcLogoutWithAValidHintRedirectsWithStateAndTheOldCookieIsDead() throws {
        let signedIn = try Self.signIn()
        let oldCookie = try #require(signedIn.browser.cookies["gatehouse_session"])
        let url = signedIn.fixture.issuer + "oidc/logout?id_token_hint=\(signedIn.idToken)&post_logout_redirect_uri="
            + AuthorizationQuery.encode(Self.bye) + "&state=xyz-123"
        let response = try signedIn.browser.get(url)
        #expect(response.status == 302)
        #expect(response.headers["location"] == Self.bye + "?state=xyz-123")
        #expect(try Self.silentAuthorization(signedIn)["error"] == "login_required")

        // F13: replaying the old session cookie finds no session.
        let replay = try Curl.get(signedIn.fixture.authorizeURL(clientID: signedIn.clientID, extra: [("prompt", "none")]),
                                  ["-H", "Cookie: gatehouse_session=\(oldCookie)"])
        #expect(queryParameters(of: try #require(replay.headers["location"]))["error"] == "login_required")
    }

    /// F07: a post_logout_redirect_uri with `?foo=bar` added is refused and the session stays.
    @Test func oidcLogoutRefusesAnInexactRedirect() throws {
        let signedIn = try Self.signIn()
        let url = signedIn.fixture.issuer + "oidc/logout?id_token_hint=\(signedIn.idToken)&post_logout_redirect_uri="
            + AuthorizationQuery.encode(Self.bye + "?foo=bar")
        let response = try signedIn.browser.get(url)
        #expect(response.status == 400)
        #expect(response.headers["location"] == nil)
        #expect(try Self.silentAuthorization(signedIn)["code"] != nil)
    }

    /// F09 / F12: without a hint, a GET only shows the confirmation; only the user's POST with the CSRF token logs out.
    @Test func oidcLogoutWithoutAHintNeedsTheConfirmationPost() throws {
        let signedIn = try Self.signIn()
        let issuer = signedIn.fixture.issuer
        let url = issuer + "oidc/logout?client_id=\(signedIn.clientID)&post_logout_redirect_uri=" + AuthorizationQuery.encode(Self.bye) + "&state=s1"
        let page = try signedIn.browser.get(url)
        #expect(page.status == 200)
        #expect(page.headers["location"] == nil)
        #expect(page.text.contains("<form method=\"post\""))
        #expect(try Self.silentAuthorization(signedIn)["code"] != nil)  // The GET alone did not log out.

        let csrf = try #require(HTMLForm.value(of: "csrf_token", in: page.text))
        let fields = [("client_id", signedIn.clientID), ("post_logout_redirect_uri", Self.bye), ("state", "s1"), ("action", "logout")]
        // A forged POST (no or wrong token) is refused and changes nothing.
        #expect(try signedIn.browser.post(issuer + "oidc/logout", form: fields).status == 403)
        #expect(try signedIn.browser.post(issuer + "oidc/logout", form: fields + [("csrf_token", "forged")]).status == 403)
        // The right token from another browser (no binding cookie) is refused too.
        let attacker = Browser(directory: signedIn.fixture.daemon.directory)
        #expect(try attacker.post(issuer + "oidc/logout", form: fields + [("csrf_token", csrf)]).status == 403)
        #expect(try Self.silentAuthorization(signedIn)["code"] != nil)

        let confirmed = try signedIn.browser.post(issuer + "oidc/logout", form: fields + [("csrf_token", csrf)])
        #expect(confirmed.status == 302)
        #expect(confirmed.headers["location"] == Self.bye + "?state=s1")
        #expect(try Self.silentAuthorization(signedIn)["error"] == "login_required")
    }

    /// F10: no parameters without a session → the signed-out page at once.
    @Test func oidcLogoutWithoutParametersOrSessionShowsTheSignedOutPage() throws {
        let fixture = try SignInFixture()
        let response = try Browser(directory: fixture.daemon.directory).get(fixture.issuer + "oidc/logout?state=only")
        #expect(response.status == 200)
        #expect(response.text.contains("Signed out"))
    }
}

/// Percent-encoding for hand-built query strings.
enum AuthorizationQuery {
    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? value
    }
}
