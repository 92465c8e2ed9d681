import Crypto
import Foundation
import Model
import Storage
import Testing
import TestSupport

/// The sign-in pages through the daemon's real routes over a temporary database, in-process: the
/// login form, its errors, the continuation and the code exchange, hop by hop.
@Suite("Sign-in pages in-process")
struct InProcessSignInTests {
    static let callback = "com.example.app://id.example.com/ios/com.example.app/callback"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    let harness: RouteHarness

    init() throws {
        harness = try RouteHarness()
        try SQLiteClientStore(store: harness.store).create(Client(
            clientID: "app-1", name: "Things <iOS>", type: .native,
            grantTypes: [.authorizationCode, .refreshToken, .passwordRealm], callbacks: [Self.callback], createdAt: Date()))
        try SQLiteUserStore(store: harness.store).create(User(
            userID: "auth0|alice", email: "alice@example.com", passwordHash: try PasswordHash.hash("right password"), createdAt: Date()))
        try SQLiteAPIStore(store: harness.store).create(API(apiID: "api-1", identifier: "https://api.example.com/", name: "Things",
                                                            scopes: ["read:things"], createdAt: Date()))
    }

    func authorizePath(_ extra: String = "") -> String {
        "/authorize?client_id=app-1&response_type=code&redirect_uri=\(RouteHarness.encode(Self.callback))&state=st-1&nonce=n-1"
            + "&scope=openid%20profile%20offline_access&code_challenge=\(Self.challenge)&code_challenge_method=S256" + extra
    }

    func login(_ page: RouteHarness.Response, password: String = "right password", csrf: String? = nil) throws -> RouteHarness.Response {
        let tx = try #require(HTMLForm.value(of: "tx", in: page.text))
        let token = try #require(HTMLForm.value(of: "csrf_token", in: page.text))
        return harness.post("/login", form: [("tx", tx), ("csrf_token", csrf ?? token), ("email", "alice@example.com"),
                                             ("password", password), ("action", "login")])
    }

    @Test func theWholeSignInHopByHop() throws {
        let page = harness.get(authorizePath())
        #expect(page.status == 200)
        #expect(page.text.contains("Things &lt;iOS&gt;"))
        #expect(harness.cookies["__Host-gatehouse_tx"] != nil)

        let wrong = try login(page, password: "wrong")
        #expect(wrong.status == 401)
        #expect(wrong.text.contains("Wrong email or password."))
        #expect(harness.cookies["__Host-gatehouse_session"] == nil)

        let signedIn = try login(page)
        #expect(signedIn.status == 303)
        let resume = try #require(signedIn.location)
        #expect(resume.hasPrefix(harness.issuer + "authorize/resume?tx="))
        #expect(harness.cookies["__Host-gatehouse_session"] != nil)

        let back = harness.get(resume)
        #expect(back.status == 302)
        let location = try #require(back.location)
        #expect(location.hasPrefix(Self.callback + "?code="))
        let query = queryParameters(of: location.replacingOccurrences(of: Self.callback, with: "https://cb.invalid/"))
        #expect(query["state"] == "st-1" && query["iss"] == harness.issuer)
        #expect(harness.cookies["__Host-gatehouse_tx"] == nil)

        let token = harness.post("/oauth/token", form: [("grant_type", "authorization_code"), ("client_id", "app-1"),
                                                       ("code", try #require(query["code"])), ("code_verifier", Self.verifier),
                                                       ("redirect_uri", Self.callback)])
        #expect(token.status == 200)
        #expect(token.text.contains("\"refresh_token\""))
        #expect(token.headers["Cache-Control"] == "no-store")

        // SSO: the next /authorize issues a code without a page.
        let sso = harness.get(authorizePath())
        #expect(sso.status == 302 && sso.location?.hasPrefix(Self.callback + "?code=") == true)
        // The login count and the session were committed with the login.
        #expect(try SQLiteUserStore(store: harness.store).find(userID: "auth0|alice")?.loginsCount == 1)
        #expect(try SQLiteSessionStore(store: harness.store).list(userID: "auth0|alice").count == 1)
    }

    @Test func errorPages() throws {
        let unknown = harness.get("/authorize?client_id=nope&response_type=code&redirect_uri=x")
        #expect(unknown.status == 400 && unknown.text.contains("Sign-in unavailable") && unknown.location == nil)

        let page = harness.get(authorizePath())
        let forged = try login(page, csrf: "forged")
        #expect(forged.status == 403 && forged.text.contains("Request refused"))

        harness.clearCookies()
        let expired = try login(page)
        #expect(expired.status == 400 && expired.text.contains("Sign-in expired"))

        let unreadable = harness.send("POST", "/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                      body: [0x25, 0x7A, 0x7A], from: "198.51.100.7")
        #expect(unreadable.status == 400 && unreadable.text.contains("The form could not be read."))

        let resume = harness.get("/authorize/resume?tx=nothing")
        #expect(resume.status == 400 && resume.text.contains("Sign-in expired"))
    }

    /// An unregistered audience is refused at /authorize (redirected with state) and by the
    /// password grant (JSON), with the same error.
    @Test func anUnregisteredAudienceIsRefusedAlike() throws {
        let page = harness.get(authorizePath("&audience=" + RouteHarness.encode("https://unknown.example.com/")))
        #expect(page.status == 302)
        let location = try #require(page.location)
        #expect(location.contains("error=invalid_request") && location.contains("state=st-1"))
        #expect(location.contains("error_description=the%20audience%20is%20not%20a%20registered%20API"))

        let grant = harness.post("/oauth/token", form: [
            ("grant_type", "http://auth0.com/oauth/grant-type/password-realm"), ("client_id", "app-1"), ("username", "alice@example.com"),
            ("password", "right password"), ("realm", "Username-Password-Authentication"), ("audience", "https://unknown.example.com/"),
        ])
        #expect(grant.status == 400)
        #expect(grant.text == #"{"error":"invalid_request","error_description":"the audience is not a registered API"}"#)
        let api = harness.post("/oauth/token", form: [
            ("grant_type", "http://auth0.com/oauth/grant-type/password-realm"), ("client_id", "app-1"), ("username", "alice@example.com"),
            ("password", "right password"), ("realm", "Username-Password-Authentication"), ("audience", "https://api.example.com/"),
            ("scope", "openid read:things"),
        ])
        #expect(api.status == 200)
        #expect(api.text.contains(#""scope":"openid read:things""#))
    }

    /// What the pages report is audited: failures, successes, refusals.
    @Test func signInOutcomesAreAudited() throws {
        let page = harness.get(authorizePath())
        _ = try login(page, password: "wrong")
        _ = try login(page)
        harness.routes.flushAudit()
        let events = try AuditStore(store: harness.store).tail(limit: 10).map(\.event)
        #expect(events.contains("login.failed") && events.contains("login.succeeded"))
    }
}
