import Crypto
import Foundation
import Model
import Storage
import Testing
import TestSupport

/// Native to web (README "Native to web") through the daemon's real routes over a temporary SQLite
/// database, with the test's clock and each request's client address: the app's refresh token
/// becomes a one-time session transfer token, and the web app's `/authorize` turns it into a
/// browser session. One test per way a token is not honoured, each with its exact outcome.
@Suite("Session transfer in-process")
struct SessionTransferRouteTests {
    static let nativeCallback = "com.example.app://id.example.com/ios/com.example.app/callback"
    static let webCallback = "https://web.example.com/callback"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let audience = "urn:id.example.com:session_transfer"
    static let phone = "203.0.113.10"
    static let deadBody = #"{"error":"invalid_grant","error_description":"Unknown or invalid refresh token."}"#

    let clock = MutableClock(Date(timeIntervalSince1970: 1_900_000_000))
    let harness: RouteHarness

    init() throws {
        harness = try RouteHarness(clock: clock)
        let clients = SQLiteClientStore(store: harness.store)
        try clients.create(Client(clientID: "native-1", name: "Phone app", type: .native, callbacks: [Self.nativeCallback],
                                  createdAt: clock.now, sessionTransfer: SessionTransferPolicy(allowIssue: true)))
        try clients.create(Client(clientID: "native-off", name: "Other phone app", type: .native, callbacks: [Self.nativeCallback],
                                  createdAt: clock.now))
        for (id, accept) in [("web-both", [.cookie, .query]), ("web-cookie", .cookie), ("web-query", .query),
                             ("web-off", [])] as [(String, SessionTransferPolicy.Channels)] {
            try clients.create(Client(clientID: id, name: "Web \(id)", type: .spa, callbacks: [Self.webCallback], createdAt: clock.now,
                                      sessionTransfer: SessionTransferPolicy(accept: accept)))
        }
        let users = SQLiteUserStore(store: harness.store)
        for name in ["alice", "bob"] {
            try users.create(User(userID: "auth0|\(name)", email: "\(name)@example.com", passwordHash: try PasswordHash.hash("pw \(name) 1234"),
                                  createdAt: clock.now))
        }
    }

    // MARK: - Steps

    func authorizePath(_ clientID: String, callback: String, extra: String = "") -> String {
        "/authorize?client_id=\(clientID)&response_type=code&redirect_uri=\(RouteHarness.encode(callback))&state=st-1&nonce=n-1"
            + "&scope=openid%20profile%20email%20offline_access&code_challenge=\(Self.challenge)&code_challenge_method=S256" + extra
    }

    /// Signs `user` in at `clientID` in a fresh jar and redeems the code; returns the token response.
    func signIn(_ user: String = "alice", clientID: String = "native-1", callback: String = nativeCallback,
                from ip: String = phone) throws -> [String: Any] {
        harness.clearCookies()
        let page = harness.get(authorizePath(clientID, callback: callback), from: ip)
        let tx = try #require(HTMLForm.value(of: "tx", in: page.text), "\(page.status) \(page.text)")
        let csrf = try #require(HTMLForm.value(of: "csrf_token", in: page.text))
        let posted = harness.post("/login", form: [("tx", tx), ("csrf_token", csrf), ("email", "\(user)@example.com"),
                                                   ("password", "pw \(user) 1234"), ("action", "login")], from: ip)
        let resume = try #require(posted.location)
        let resumed = harness.get(resume, from: ip)
        let location = try #require(resumed.location)
        let code = try #require(queryParameters(of: location)["code"])
        return try redeem(code, clientID: clientID, callback: callback, from: ip).json
    }

    func redeem(_ code: String, clientID: String, callback: String, from ip: String = phone) throws -> RouteHarness.Response {
        harness.postJSON("/oauth/token", ["grant_type": "authorization_code", "client_id": clientID, "code": code,
                                          "code_verifier": Self.verifier, "redirect_uri": callback], from: ip)
    }

    /// Auth0.swift's `ssoExchange(withRefreshToken:)`: exactly these four JSON members.
    func exchange(_ refreshToken: String, clientID: String = "native-1", audience: String = audience,
                  from ip: String = phone) -> RouteHarness.Response {
        harness.postJSON("/oauth/token", ["client_id": clientID, "refresh_token": refreshToken, "grant_type": "refresh_token",
                                          "audience": audience], from: ip)
    }

    /// A signed-in app's session transfer token (and its response).
    func transferToken(from ip: String = phone) throws -> (token: String, body: [String: Any], parentRefresh: String) {
        let signedIn = try signIn()
        let response = exchange(try #require(signedIn["refresh_token"] as? String), from: ip)
        #expect(response.status == 200, "\(response.text)")
        let body = response.json
        return (try #require(body["access_token"] as? String), body, try #require(body["refresh_token"] as? String))
    }

    /// The web view's `/authorize` of a web app, in a fresh jar unless `keepCookies`.
    func webAuthorize(_ clientID: String = "web-both", query token: String? = nil, cookie: String? = nil, extra: String = "",
                      from ip: String = phone, keepCookies: Bool = false) -> RouteHarness.Response {
        if !keepCookies { harness.clearCookies() }
        if let cookie { harness.setCookie("auth0_session_transfer_token", cookie) }
        let parameter = token.map { "&session_transfer_token=" + RouteHarness.encode($0) } ?? ""
        return harness.get(authorizePath(clientID, callback: Self.webCallback, extra: parameter + extra), from: ip)
    }

    func isLoginPage(_ response: RouteHarness.Response) -> Bool {
        response.status == 200 && HTMLForm.value(of: "csrf_token", in: response.text) != nil
    }

    func webCode(of response: RouteHarness.Response) -> String? {
        guard response.status == 302, let location = response.location, location.hasPrefix(Self.webCallback + "?") else { return nil }
        return queryParameters(of: location)["code"]
    }

    func events(_ name: String) throws -> [AuditEvent] {
        harness.routes.flushAudit()
        return try AuditStore(store: harness.store).tail(limit: 200).filter { $0.event == name }
    }

    static func claims(_ jwt: String) throws -> [String: Any] {
        var part = String(jwt.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        part += String(repeating: "=", count: (4 - part.count % 4) % 4)
        let data = try #require(Data(base64Encoded: part))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    // MARK: - The handover

    @Test func theWireShapeAuth0SwiftDecodesKeyByKey() throws {
        let signedIn = try signIn()
        let refresh = try #require(signedIn["refresh_token"] as? String)
        let response = exchange(refresh)
        #expect(response.status == 200, "\(response.text)")
        #expect(response.headers["Cache-Control"] == "no-store")
        let body = response.json
        // SSOCredentials: access_token, issued_token_type, expires_in (a number), id_token, refresh_token?.
        #expect(Set(body.keys) == ["access_token", "issued_token_type", "token_type", "expires_in", "id_token", "refresh_token", "scope"])
        let token = try #require(body["access_token"] as? String)
        #expect(token.count == 43 && Array(token.utf8).allSatisfy { $0 == 45 || $0 == 95 || ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) })
        #expect(body["issued_token_type"] as? String == "urn:auth0:params:oauth:token-type:session_transfer_token")
        #expect(body["token_type"] as? String == "N_A")
        #expect(body["expires_in"] as? Int == 60 && response.text.contains(#""expires_in":60,"#))
        let idToken = try Self.claims(try #require(body["id_token"] as? String))
        #expect(idToken["sub"] as? String == "auth0|alice" && idToken["aud"] as? String == "native-1" && idToken["iss"] as? String == harness.issuer)
        // The refresh rotated: the successor works, the presented token is spent.
        let successor = try #require(body["refresh_token"] as? String)
        #expect(successor != refresh)
        #expect(harness.postJSON("/oauth/token", ["grant_type": "refresh_token", "client_id": "native-1", "refresh_token": successor],
                                 from: Self.phone).status == 200)
        // Only the digest is stored.
        let stored = try harness.store.database.read { try $0.query("SELECT token_hash FROM session_transfer_tokens") }
        #expect(try stored.map { try $0.string("token_hash") } == [SecretDigest.hash(token)])
    }

    @Test func theHandoverByQueryGivesTheWebAppItsOwnCodeForTheSameUser() throws {
        let transfer = try transferToken()
        let nativeSub = try Self.claims(try #require(transfer.body["id_token"] as? String))["sub"] as? String
        let authorized = webAuthorize(query: transfer.token)
        let code = try #require(webCode(of: authorized), "\(authorized.status) \(authorized.text.prefix(300))")
        #expect(harness.cookies["__Host-gatehouse_session"] != nil)
        let tokens = try redeem(code, clientID: "web-both", callback: Self.webCallback)
        #expect(tokens.status == 200, "\(tokens.text)")
        let idToken = try Self.claims(try #require(tokens.json["id_token"] as? String))
        #expect(idToken["sub"] as? String == nativeSub && idToken["aud"] as? String == "web-both" && idToken["nonce"] as? String == "n-1")
        // The session remembers its parent, and the audit says how it came.
        let sid = try #require(idToken["sid"] as? String)
        let session = try #require(try SQLiteSessionStore(store: harness.store).find(sessionID: sid))
        #expect(session.parentGrantID != nil && session.userID == "auth0|alice" && session.ip == Self.phone)
        let redeemed = try #require(try events("session_transfer.redeemed").first)
        #expect(redeemed.clientID == "web-both" && redeemed.details["channel"] == "query" && redeemed.details["issuing_client_id"] == "native-1")
        #expect(try events("session_transfer.issued").first?.details["binding"] == "ip")
        // Single sign-on goes on from that session.
        #expect(webCode(of: webAuthorize(extra: "&prompt=none", keepCookies: true)) != nil)
    }

    @Test func theHandoverByCookieWorksWithPromptNoneAndDropsTheCookie() throws {
        let transfer = try transferToken()
        let authorized = webAuthorize("web-cookie", cookie: transfer.token, extra: "&prompt=none")
        #expect(webCode(of: authorized) != nil, "\(authorized.status) \(authorized.location ?? "")")
        let dropped = authorized.headers.values("Set-Cookie").filter { $0.hasPrefix("auth0_session_transfer_token=;") }
        #expect(dropped.count == 2 && dropped.allSatisfy { $0.contains("Max-Age=0") && $0.contains("Path=/") })
        #expect(dropped.contains { $0.hasSuffix("; Domain=id.example.com") })
        #expect(harness.cookies["auth0_session_transfer_token"] == nil && harness.cookies["__Host-gatehouse_session"] != nil)
        #expect(try events("session_transfer.redeemed").first?.details["channel"] == "cookie")
    }

    // MARK: - Not honoured

    @Test func aReusedTokenShowsTheLoginPage() throws {
        let transfer = try transferToken()
        #expect(webCode(of: webAuthorize(query: transfer.token)) != nil)
        let again = webAuthorize(query: transfer.token)
        #expect(isLoginPage(again))
        #expect(harness.cookies["__Host-gatehouse_session"] == nil)
        #expect(try events("session_transfer.rejected").map { $0.details["reason"] } == ["reused"])
    }

    @Test func anExpiredTokenShowsTheLoginPage() throws {
        let transfer = try transferToken()
        clock.advance(by: 60)
        #expect(isLoginPage(webAuthorize(query: transfer.token)))
        #expect(try events("session_transfer.rejected").map { $0.details["reason"] } == ["expired"])
        #expect(try events("session_transfer.redeemed").isEmpty)
    }

    @Test func aTokenFromAnotherAddressIsNotHonouredAndIsSpent() throws {
        let transfer = try transferToken()
        #expect(isLoginPage(webAuthorize(query: transfer.token, from: "198.51.100.99")))
        let rejected = try events("session_transfer.rejected")
        #expect(rejected.map { $0.details["reason"] } == ["other_address"] && rejected.first?.details["issued_to"] == Self.phone)
        // Seen once, spent: the right device cannot use it after someone else presented it.
        #expect(isLoginPage(webAuthorize(query: transfer.token)))
    }

    @Test func bindingNoneAcceptsAnyAddress() throws {
        let clients = SQLiteClientStore(store: harness.store)
        var native = try #require(try clients.find(clientID: "native-1"))
        native.sessionTransfer.binding = .none
        try clients.update(native)
        let transfer = try transferToken()
        #expect(webCode(of: webAuthorize(query: transfer.token, from: "198.51.100.99")) != nil)
    }

    @Test func anAppWithoutAllowGetsUnauthorizedClientAndKeepsItsRefreshToken() throws {
        let signedIn = try signIn(clientID: "native-off")
        let refresh = try #require(signedIn["refresh_token"] as? String)
        let refused = exchange(refresh, clientID: "native-off")
        #expect(refused.status == 400)
        #expect(refused.text == #"{"error":"unauthorized_client","error_description":"the application is not allowed to create session transfer tokens"}"#)
        // Nothing was consumed: a plain refresh still works with the same token.
        #expect(harness.postJSON("/oauth/token", ["grant_type": "refresh_token", "client_id": "native-off", "refresh_token": refresh],
                                 from: Self.phone).status == 200)
    }

    @Test func anotherURNAudienceKeepsTodaysAnswer() throws {
        let refresh = try #require(try signIn()["refresh_token"] as? String)
        let other = exchange(refresh, audience: "urn:elsewhere.example.com:session_transfer")
        #expect(other.status == 400 && other.text == #"{"error":"invalid_request","error_description":"audience not granted"}"#)
        // The host is compared without case, as a host is.
        #expect(exchange(refresh, audience: "urn:ID.Example.COM:session_transfer").status == 200)
    }

    @Test func aReceivingAppWithOffIgnoresTheTokenWithoutSpendingIt() throws {
        let transfer = try transferToken()
        #expect(isLoginPage(webAuthorize("web-off", query: transfer.token)))
        #expect(isLoginPage(webAuthorize("web-off", cookie: transfer.token)))
        let rejected = try events("session_transfer.rejected")
        #expect(rejected.map { $0.details["reason"] } == ["channel_not_accepted", "channel_not_accepted"])
        #expect(Set(rejected.compactMap { $0.details["channel"] }) == ["query", "cookie"])
        // Not looked up, so still good where it is accepted.
        #expect(webCode(of: webAuthorize(query: transfer.token)) != nil)
    }

    @Test func aCookieOnlyAppIgnoresTheQueryAndAQueryOnlyAppTheCookie() throws {
        let transfer = try transferToken()
        #expect(isLoginPage(webAuthorize("web-cookie", query: transfer.token)))
        #expect(isLoginPage(webAuthorize("web-query", cookie: transfer.token)))
        #expect(try events("session_transfer.rejected").map { $0.details["reason"] } == ["channel_not_accepted", "channel_not_accepted"])
        #expect(webCode(of: webAuthorize("web-cookie", cookie: transfer.token)) != nil)
    }

    @Test func anotherUsersSessionIsEndedAndTheTokenNotHonoured() throws {
        // Bob is signed in to the web app in this browser.
        _ = try signIn("bob", clientID: "web-both", callback: Self.webCallback)
        let bobCookie = try #require(harness.cookies["__Host-gatehouse_session"])
        let bobSession = try #require(try SQLiteSessionStore(store: harness.store).find(cookieHash: SecretDigest.hash(bobCookie)))
        let transfer = try transferToken()
        harness.clearCookies()
        harness.setCookie("__Host-gatehouse_session", bobCookie)
        let answer = webAuthorize(query: transfer.token, keepCookies: true)
        #expect(isLoginPage(answer))
        #expect(answer.headers.values("Set-Cookie").contains { $0.hasPrefix("__Host-gatehouse_session=;") && $0.contains("Max-Age=0") })
        #expect(try SQLiteSessionStore(store: harness.store).find(sessionID: bobSession.sessionID)?.endedAt != nil)
        let rejected = try #require(try events("session_transfer.rejected").first)
        #expect(rejected.details["reason"] == "other_user_session" && rejected.details["ended_session_id"] == bobSession.sessionID)
        #expect(try SQLiteSessionStore(store: harness.store).list(userID: "auth0|alice").allSatisfy { $0.parentGrantID == nil })
    }

    @Test func theSameUsersSessionGoesOn() throws {
        _ = try signIn("alice", clientID: "web-both", callback: Self.webCallback)
        let cookie = try #require(harness.cookies["__Host-gatehouse_session"])
        let transfer = try transferToken()
        harness.clearCookies()
        harness.setCookie("__Host-gatehouse_session", cookie)
        let answer = webAuthorize(query: transfer.token, keepCookies: true)
        #expect(webCode(of: answer) != nil)
        #expect(!answer.headers.values("Set-Cookie").contains { $0.hasPrefix("__Host-gatehouse_session=") })
        #expect(try SQLiteSessionStore(store: harness.store).list(userID: "auth0|alice").allSatisfy { $0.parentGrantID == nil })
    }

    @Test func aNotHonouredTokenAsksForASignInEvenWithASessionAndPromptNone() throws {
        _ = try signIn("alice", clientID: "web-both", callback: Self.webCallback)
        let answer = webAuthorize(query: "not-a-token", extra: "&prompt=none", keepCookies: true)
        #expect(answer.status == 302 && queryParameters(of: answer.location ?? "")["error"] == "login_required")
        #expect(try events("session_transfer.rejected").map { $0.details["reason"] } == ["unknown"])
    }

    @Test func aRequestWithItsOwnErrorSpendsNothing() throws {
        let transfer = try transferToken()
        harness.clearCookies()
        let wrong = harness.get("/authorize?client_id=web-both&response_type=code&redirect_uri=https%3A%2F%2Fevil.example%2F"
                                + "&session_transfer_token=" + transfer.token, from: Self.phone)
        #expect(wrong.status == 400)
        #expect(webCode(of: webAuthorize(query: transfer.token)) != nil)
    }

    @Test func aRevokedParentIsNotHonoured() throws {
        let transfer = try transferToken()
        #expect(harness.postJSON("/oauth/revoke", ["token": transfer.parentRefresh, "client_id": "native-1"], from: Self.phone).status == 200)
        #expect(isLoginPage(webAuthorize(query: transfer.token)))
        #expect(try events("session_transfer.rejected").map { $0.details["reason"] } == ["parent_revoked"])
    }

    @Test func aBlockedUsersTokenIsNotHonoured() throws {
        let transfer = try transferToken()
        let users = SQLiteUserStore(store: harness.store)
        var alice = try #require(try users.find(userID: "auth0|alice"))
        alice.blocked = true
        try users.update(alice)
        #expect(isLoginPage(webAuthorize(query: transfer.token)))
        #expect(try events("session_transfer.rejected").map { $0.details["reason"] } == ["user_unavailable"])
    }

    // MARK: - Revoking the parent

    @Test func revokingTheParentEndsTheTransferredSessionAndItsTokens() throws {
        let transfer = try transferToken()
        let code = try #require(webCode(of: webAuthorize(query: transfer.token)))
        let web = try redeem(code, clientID: "web-both", callback: Self.webCallback).json
        let webRefresh = try #require(web["refresh_token"] as? String)
        let webAccess = try #require(web["access_token"] as? String)
        #expect(harness.get("/userinfo", headers: [("Authorization", "Bearer " + webAccess)]).status == 200)

        #expect(harness.postJSON("/oauth/revoke", ["token": transfer.parentRefresh, "client_id": "native-1"], from: Self.phone).status == 200)
        let silent = webAuthorize(extra: "&prompt=none", keepCookies: true)
        #expect(silent.status == 302 && queryParameters(of: silent.location ?? "")["error"] == "login_required")
        #expect(harness.get("/userinfo", headers: [("Authorization", "Bearer " + webAccess)]).status == 401)
        let refreshed = harness.postJSON("/oauth/token", ["grant_type": "refresh_token", "client_id": "web-both", "refresh_token": webRefresh])
        #expect(refreshed.status == 400 && refreshed.text == Self.deadBody)
    }

    @Test func reuseDetectionOnTheParentEndsTheTransferredSession() throws {
        let signedIn = try signIn()
        let first = try #require(signedIn["refresh_token"] as? String)
        let transfer = exchange(first).json
        #expect(webCode(of: webAuthorize(query: try #require(transfer["access_token"] as? String))) != nil)
        clock.advance(by: 11)  // past the default 10 s overlap window
        #expect(exchange(first).text == Self.deadBody)
        let silent = webAuthorize(extra: "&prompt=none", keepCookies: true)
        #expect(queryParameters(of: silent.location ?? "")["error"] == "login_required")
    }

    @Test func aTransferredSessionCannotBeHandedOverAgain() throws {
        let clients = SQLiteClientStore(store: harness.store)
        var web = try #require(try clients.find(clientID: "web-both"))
        web.sessionTransfer.allowIssue = true
        try clients.update(web)
        let transfer = try transferToken()
        let code = try #require(webCode(of: webAuthorize(query: transfer.token)))
        let webRefresh = try #require(try redeem(code, clientID: "web-both", callback: Self.webCallback).json["refresh_token"] as? String)
        let again = exchange(webRefresh, clientID: "web-both")
        #expect(again.status == 400)
        #expect(again.text == #"{"error":"invalid_grant","error_description":"a session created by a session transfer cannot be handed over again"}"#)
        // Refused before the rotation: the token still refreshes.
        #expect(harness.postJSON("/oauth/token", ["grant_type": "refresh_token", "client_id": "web-both", "refresh_token": webRefresh],
                                 from: Self.phone).status == 200)
    }
}
