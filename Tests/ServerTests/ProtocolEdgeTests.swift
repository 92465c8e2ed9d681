import Crypto
import Foundation
import Model
import Storage
import Testing
import TestSupport

/// Protocol edges found by attacking the daemon (the hardening issue, section 4), through the real
/// routes in-process.
@Suite("Protocol edges")
struct ProtocolEdgeTests {
    static let callback = "com.example.app://id.example.com/ios/com.example.app/callback"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    let harness: RouteHarness

    init() throws {
        harness = try RouteHarness()
        try SQLiteClientStore(store: harness.store).create(Client(
            clientID: "app-1", name: "Things", type: .native, callbacks: [Self.callback],
            logoutURLs: ["https://app.example.com/bye", "https://app.example.com/bye?tenant=1"], createdAt: Date()))
        try SQLiteUserStore(store: harness.store).create(User(
            userID: "auth0|alice", email: "alice@example.com", passwordHash: try PasswordHash.hash("right password"), createdAt: Date()))
    }

    var authorizePath: String {
        "/authorize?client_id=app-1&response_type=code&redirect_uri=\(RouteHarness.encode(Self.callback))&state=st-1"
            + "&scope=openid&code_challenge=\(Self.challenge)&code_challenge_method=S256"
    }

    /// Signs in and returns the session id.
    func signIn() throws -> String {
        let page = harness.get(authorizePath)
        let tx = try #require(HTMLForm.value(of: "tx", in: page.text))
        let csrf = try #require(HTMLForm.value(of: "csrf_token", in: page.text))
        let login = harness.post("/login", form: [("tx", tx), ("csrf_token", csrf), ("email", "alice@example.com"),
                                                  ("password", "right password"), ("action", "login")])
        #expect(login.status == 303)
        _ = harness.get(try #require(login.location))
        return try #require(try SQLiteSessionStore(store: harness.store).list(userID: "auth0|alice").first?.sessionID)
    }

    func sessionLive(_ id: String) throws -> Bool {
        try SQLiteSessionStore(store: harness.store).find(sessionID: id)?.endedAt == nil
    }

    /// CR, LF or NUL in `returnTo` — even in the query or fragment, which matching ignores — is refused
    /// with a page before the session is touched; no 500, no header split.
    @Test(arguments: ["https://app.example.com/bye?x=%0d%0aSet-Cookie:%20a=b", "https://app.example.com/bye#%00",
                      "https://app.example.com/bye%0a"])
    func controlCharactersInReturnToAreRefusedFirst(_ returnTo: String) throws {
        let session = try signIn()
        let response = harness.get("/v2/logout?client_id=app-1&returnTo=" + returnTo)
        #expect(response.status == 400)
        #expect(response.location == nil)
        #expect(try sessionLive(session))
        let oidc = harness.get("/oidc/logout?client_id=app-1&post_logout_redirect_uri=" + returnTo)
        #expect(oidc.status == 400)
        #expect(try sessionLive(session))
    }

    /// `Location` percent-encodes what is not allowed raw; an allowed returnTo still goes through.
    @Test func locationHeadersAreEncoded() throws {
        _ = try signIn()
        let response = harness.get("/v2/logout?client_id=app-1&returnTo=" + RouteHarness.encode("https://app.example.com/bye?q=a b\"ü"))
        #expect(response.status == 302)
        #expect(response.location == "https://app.example.com/bye?q=a%20b%22%C3%BC")
    }

    /// A logout URL with a query is registrable; /oidc/logout matches it exactly, query included.
    @Test func aLogoutURLWithAQueryIsMatchedExactlyByRPInitiatedLogout() throws {
        _ = try signIn()
        let refused = harness.get("/oidc/logout?client_id=app-1&post_logout_redirect_uri=" + RouteHarness.encode("https://app.example.com/bye?tenant=2"))
        #expect(refused.status == 400 && refused.location == nil)
        // Without an id_token_hint the exact URL gets the confirmation page, which carries it on.
        let confirm = harness.get("/oidc/logout?client_id=app-1&post_logout_redirect_uri=" + RouteHarness.encode("https://app.example.com/bye?tenant=1"))
        #expect(confirm.status == 200 && confirm.text.contains("https://app.example.com/bye?tenant=1"))
    }

    /// HEAD changes nothing: with a live session, HEAD /authorize answers 200 and issues no code.
    @Test func headAuthorizeIssuesNothing() throws {
        _ = try signIn()
        let codesBefore = try count("authorization_codes")
        let transactionsBefore = try count("login_transactions")
        let head = harness.send("HEAD", authorizePath, headers: [], body: [], from: "198.51.100.7")
        #expect(head.status == 200)
        #expect(head.location == nil && head.headers["Set-Cookie"] == nil)
        #expect(try count("authorization_codes") == codesBefore)
        #expect(try count("login_transactions") == transactionsBefore)
        // HEAD of a bad request answers its error page's status, still without writing.
        #expect(harness.send("HEAD", "/authorize?client_id=nope", headers: [], body: [], from: "198.51.100.7").status == 400)
        harness.clearCookies()
        #expect(harness.send("HEAD", authorizePath, headers: [], body: [], from: "198.51.100.7").status == 200)
        #expect(try count("login_transactions") == transactionsBefore)
    }

    /// RFC 7662 §2.3, RFC 6749 §5.2: introspection without client credentials is 401 invalid_client.
    @Test func introspectionWithoutCredentialsIs401() throws {
        let response = harness.post("/oauth/introspect", form: [("token", "anything")])
        #expect(response.status == 401)
        #expect(response.text.contains(#""error":"invalid_client""#))
        #expect(response.headers["WWW-Authenticate"]?.hasPrefix("Basic realm=") == true)
    }

    private func count(_ table: String) throws -> Int {
        try harness.store.database.read { try $0.queryOne("SELECT count(*) FROM \(table)")?.int(0) ?? -1 }
    }
}
