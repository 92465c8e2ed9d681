import Foundation
import Testing
import TestSupport

/// Sign-in through an upstream `oidc` connection whose provider is a second, real Gatehouse
/// daemon: Gatehouse as an OIDC client against an OIDC provider whose client code this flow did
/// not write (README "Upstream connections"). Each daemon gets its own cookie jar, as a browser
/// keeps cookies per host.
@Suite("Upstream sign-in against a second Gatehouse", .serialized)
struct UpstreamSignInTests {
    let relying: SignInFixture
    let provider: SignInFixture
    let appID: String
    let providerUserID: String

    init() throws {
        relying = try SignInFixture()
        provider = try SignInFixture()
        providerUserID = try provider.createUser("alice@corp.example", name: "Alice Corp")
        let upstreamApp = try provider.createApp("regular", callbacks: [relying.issuer + "login/callback"])
        let created = try relying.daemon.admin(["connections", "create", "--name", "corp", "--strategy", "oidc",
                                                "--client-id", upstreamApp.clientID, "--client-secret-stdin",
                                                "--discovery-url", provider.issuer + ".well-known/openid-configuration"],
                                               input: try #require(upstreamApp.secret) + "\n")
        #expect(created.status == 0, "\(created.stderr)")
        appID = try relying.createApp().clientID
        let enabled = try relying.daemon.admin(["apps", "update", appID, "--connections", "corp"])
        #expect(enabled.status == 0, "\(enabled.stderr)")
    }

    /// The provider's half: its login page, the password, its continuation; returns its redirect
    /// to our callback.
    func signInAtProvider(_ browser: Browser, from location: String) throws -> String {
        #expect(location.hasPrefix(provider.issuer + "authorize?"))
        let query = queryParameters(of: location)
        #expect(query["redirect_uri"] == relying.issuer + "login/callback")
        #expect(query["code_challenge_method"] == "S256" && query["nonce"] != nil && query["state"] != nil)
        let page = try browser.get(location)
        #expect(page.status == 200, "\(page.text)")
        let posted = try provider.submitLogin(browser, page: page, email: "alice@corp.example")
        #expect(posted.status == 303)
        let resumed = try browser.get(try #require(posted.headers["location"]))
        #expect(resumed.status == 302)
        let callback = try #require(resumed.headers["location"])
        #expect(callback.hasPrefix(relying.issuer + "login/callback?code="))
        return callback
    }

    /// Our callback → our continuation → the app's code → tokens; returns the ID token's claims.
    func finish(_ browser: Browser, callback: String) throws -> [String: Any] {
        let back = try browser.get(callback)
        #expect(back.status == 303, "\(back.text)")
        let resume = try #require(back.headers["location"])
        #expect(resume.hasPrefix(relying.issuer + "authorize/resume?tx="))
        #expect(browser.cookies["gatehouse_upstream"] == nil)
        let done = try browser.get(resume)
        #expect(done.status == 302)
        let location = try #require(done.headers["location"])
        let code = try #require(queryParameters(of: location.replacingOccurrences(of: "com.example.app://", with: "https://"))["code"])
        let tokens = try relying.redeem(code: code, clientID: appID).json()
        return try SignInFixture.claims(of: try #require(tokens["id_token"] as? String))
    }

    @Test func authorizeWithConnectionGoesStraightUpstreamAndBack() throws {
        let browser = Browser(directory: relying.daemon.directory)
        let start = try browser.get(relying.authorizeURL(clientID: appID, extra: [("connection", "corp")]))
        #expect(start.status == 302, "\(start.text)")
        #expect(browser.cookies["gatehouse_upstream"] != nil && browser.cookies["gatehouse_tx"] != nil)
        let callback = try signInAtProvider(Browser(directory: provider.daemon.directory), from: try #require(start.headers["location"]))
        let claims = try finish(browser, callback: callback)
        #expect(claims["sub"] as? String == "oidc|corp|" + providerUserID)
        #expect(claims["email"] as? String == "alice@corp.example")
        #expect(claims["nonce"] as? String == "nonce-456")

        // The identity is listed with the user.
        let shown = try relying.daemon.admin(["users", "show", "oidc|corp|" + providerUserID, "--json"])
        #expect(shown.status == 0 && shown.stdout.contains("\"corp\""), "\(shown.stdout)\(shown.stderr)")
        // The same answer delivered twice signs nobody in again.
        let again = try browser.get(callback)
        #expect(again.status == 400)
    }

    @Test func theLoginPageButtonGoesUpstream() throws {
        let browser = Browser(directory: relying.daemon.directory)
        let page = try browser.get(relying.authorizeURL(clientID: appID))
        #expect(page.status == 200)
        #expect(page.text.contains("value=\"connection:corp\""))
        #expect(page.text.contains("Continue with corp"))
        let pressed = try relying.submitLogin(browser, page: page, email: "", password: "", action: "connection:corp")
        #expect(pressed.status == 303, "\(pressed.text)")
        let callback = try signInAtProvider(Browser(directory: provider.daemon.directory), from: try #require(pressed.headers["location"]))
        let claims = try finish(browser, callback: callback)
        #expect(claims["sub"] as? String == "oidc|corp|" + providerUserID)
    }

    @Test func aConnectionTheAppDoesNotEnableIsRefused() throws {
        let other = try relying.createApp().clientID
        let browser = Browser(directory: relying.daemon.directory)
        let start = try browser.get(relying.authorizeURL(clientID: other, extra: [("connection", "corp")]))
        #expect(start.status == 302)
        let location = try #require(start.headers["location"])
        let query = queryParameters(of: location.replacingOccurrences(of: "com.example.app://", with: "https://"))
        #expect(query["error"] == "invalid_request")
        #expect(query["error_description"] == "the connection is not enabled for this application")
        #expect(query["state"] == "state-123")
        // Nor does its login page offer the button, and posting one anyway shows the page with an error.
        let page = try browser.get(relying.authorizeURL(clientID: other))
        #expect(!page.text.contains("connection:corp"))
        let forced = try relying.submitLogin(browser, page: page, email: "", password: "", action: "connection:corp")
        #expect(forced.status == 401)
        #expect(forced.text.contains("This sign-in option is not available for this app."))
    }

    @Test func aCallbackFromAnotherBrowserOrWithAnotherStateIsRefused() throws {
        let browser = Browser(directory: relying.daemon.directory)
        let start = try browser.get(relying.authorizeURL(clientID: appID, extra: [("connection", "corp")]))
        let callback = try signInAtProvider(Browser(directory: provider.daemon.directory), from: try #require(start.headers["location"]))
        // Another browser (no upstream cookie): the sign-in-expired page.
        let stranger = try Browser(directory: relying.daemon.directory).get(callback)
        #expect(stranger.status == 400 && stranger.text.contains("sign_in_expired"))
        // This browser with a changed state: refused, and the cookie is spent.
        let forged = try browser.get(callback.replacingOccurrences(of: "state=", with: "state=x"))
        #expect(forged.status == 400 && forged.text.contains("upstream_failed"))
        #expect(try browser.get(callback).status == 400)
    }

    @Test func aDeclineUpstreamGoesBackToTheAppAsAccessDenied() throws {
        let browser = Browser(directory: relying.daemon.directory)
        let start = try browser.get(relying.authorizeURL(clientID: appID, extra: [("connection", "corp")]))
        let upstream = queryParameters(of: try #require(start.headers["location"]))
        let declined = try browser.get(relying.issuer + "login/callback?error=access_denied&state=" + (upstream["state"] ?? ""))
        #expect(declined.status == 302)
        let query = queryParameters(of: try #require(declined.headers["location"]).replacingOccurrences(of: "com.example.app://", with: "https://"))
        #expect(query["error"] == "access_denied" && query["state"] == "state-123")
    }

    /// A first login links to an existing user only by an email the provider says is verified,
    /// and only with `--link-by-verified-email`; otherwise it is a new user of the connection.
    @Test func linkingNeedsAVerifiedEmailAndTheConnectionsConsent() throws {
        let existing = try relying.daemon.admin(["users", "create", "--email", "alice@corp.example", "--email-verified",
                                                 "--password-stdin", "--json"], input: SignInFixture.password + "\n")
        #expect(existing.status == 0)
        #expect(try relying.daemon.admin(["connections", "update", "corp", "--link-by-verified-email"]).status == 0)

        // The provider's user is not verified there: a new user, never a link.
        func signIn() throws -> String? {
            let browser = Browser(directory: relying.daemon.directory)
            let start = try browser.get(relying.authorizeURL(clientID: appID, extra: [("connection", "corp")]))
            let callback = try signInAtProvider(Browser(directory: provider.daemon.directory), from: try #require(start.headers["location"]))
            return try finish(browser, callback: callback)["sub"] as? String
        }
        #expect(try signIn() == "oidc|corp|" + providerUserID)

        // Verified at the provider later: the identity is already that new user's, and stays so.
        #expect(try provider.daemon.admin(["users", "update", providerUserID, "--email-verified", "true"]).status == 0)
        #expect(try signIn() == "oidc|corp|" + providerUserID)

        // A fresh provider user with a verified address links to the existing database user.
        let second = try provider.daemon.admin(["users", "create", "--email", "bob@corp.example", "--email-verified",
                                                "--password-stdin", "--json"], input: SignInFixture.password + "\n")
        #expect(second.status == 0)
        let bob = try relying.daemon.admin(["users", "create", "--email", "bob@corp.example", "--email-verified",
                                            "--password-stdin", "--json"], input: SignInFixture.password + "\n")
        let bobObject = try JSONSerialization.jsonObject(with: Data(bob.stdout.utf8)) as? [String: Any]
        let bobID = try #require(bobObject?["user_id"] as? String)
        let browser = Browser(directory: relying.daemon.directory)
        let start = try browser.get(relying.authorizeURL(clientID: appID, extra: [("connection", "corp")]))
        let location = try #require(start.headers["location"])
        let providerBrowser = Browser(directory: provider.daemon.directory)
        let page = try providerBrowser.get(location)
        let posted = try provider.submitLogin(providerBrowser, page: page, email: "bob@corp.example")
        let resume = try #require(posted.headers["location"])
        let callback = try #require(try providerBrowser.get(resume).headers["location"])
        #expect(try finish(browser, callback: callback)["sub"] as? String == bobID)
    }
}
