import Crypto
import Foundation
import JOSE
import Model
import Testing
import TestSupport
@testable import OIDC

/// A token endpoint with refresh tokens over in-memory stores and a hand-moved clock.
final class RefreshHarness: @unchecked Sendable {
    static let successorKey = Array(repeating: UInt8(7), count: 32)
    static let noWindow = Client(clientID: "native-nowindow", name: "No window", type: .native, refreshReuseInterval: 0,
                                 callbacks: [Fixture.nativeCallback], createdAt: Fixture.epoch)
    static let shortLived = Client(clientID: "native-short", name: "Short", type: .native, refreshAbsoluteLifetime: 1_000,
                                   refreshIdleLifetime: 100, callbacks: [Fixture.nativeCallback], createdAt: Fixture.epoch)
    static let other = Client(clientID: "native-other", name: "Other", type: .native, callbacks: [Fixture.nativeCallback],
                              createdAt: Fixture.epoch)
    static let noRefresh = Client(clientID: "native-norefresh", name: "No refresh", type: .native, grantTypes: [.authorizationCode],
                                  callbacks: [Fixture.nativeCallback], createdAt: Fixture.epoch)

    static let endsWithLogout = Client(clientID: "native-logout", name: "Logout", type: .native, refreshSurvivesLogout: false,
                                       callbacks: [Fixture.nativeCallback], createdAt: Fixture.epoch)

    let clock = MutableClock(Fixture.epoch)
    let clients = MemoryClientStore([Fixture.native, Fixture.web, noWindow, shortLived, other, noRefresh, endsWithLogout])
    /// Shares the refresh store's records: a session's last activity is read from its grants' tokens.
    lazy var sessions = MemorySessionStore(database: store.database)
    let users = Fixture.users()
    let codes = MemoryCodeStore()
    let store = MemoryRefreshTokenStore()
    /// Shares the refresh store's records, as the SQLite tables do: reuse revokes the grant with its tokens.
    lazy var grants = TestSupport.MemoryGrantStore(database: store.database)
    /// The audiences a sign-in may name.
    let apis = MemoryAPIStore([API(apiID: "api-1", identifier: "https://api.example.com", name: "API", scopes: ["read:things"],
                                   createdAt: Fixture.epoch)])
    lazy var refreshTokens = RefreshTokens(store: store, successorKey: Self.successorKey, sessions: sessions)
    lazy var endpoint = TokenEndpoint(issuer: Fixture.issuer, clients: clients, codes: codes, grants: grants, users: users,
                                      clock: clock, minter: TokenMinter(issuer: Fixture.issuer, signer: TestSigner(), opaqueTokens: TestSigner.opaque, clock: clock),
                                      refreshTokens: refreshTokens, apis: apis)

    /// Signs in through a code and returns the code exchange's response.
    func signIn(client: Client = Fixture.native, user: User = Fixture.alice,
                scopes: [String] = ["openid", "profile", "email", "offline_access"], audience: String? = nil) throws -> TokenResponse {
        let request = AuthorizationRequest(clientID: client.clientID, redirectURI: Fixture.nativeCallback, state: "s", nonce: "nonce-456",
                                           scopes: scopes, codeChallenge: Fixture.challenge, codeChallengeMethod: "S256", audience: audience)
        let session = Fixture.session(user, id: "sid-" + user.userID)
        if try sessions.find(sessionID: session.sessionID) == nil { try sessions.create(session) }
        let code = try CodeIssuer.issue(request: request, session: session, user: user, clock: clock, codes: codes)
        var body = [("client_id", client.clientID), ("grant_type", "authorization_code"), ("code", code),
                    ("code_verifier", Fixture.verifier), ("redirect_uri", Fixture.nativeCallback)]
        var authorization: String?
        if client.isConfidential {
            body.removeAll { $0.0 == "client_id" }
            authorization = basic(client.clientID, Fixture.secret)
        }
        return try endpoint.handle(try TokenRequest(pairs: body, authorization: authorization))
    }

    func basic(_ id: String, _ secret: String) -> String {
        "Basic " + Data((AuthorizationResponse.percentEncode(id) + ":" + AuthorizationResponse.percentEncode(secret)).utf8).base64EncodedString()
    }

    /// Auth0.swift's refresh body.
    func refresh(_ token: String, clientID: String = Fixture.native.clientID, extra: [(String, String)] = [],
                 authorization: String? = nil) throws(OAuthError) -> TokenResponse {
        try endpoint.handle(try TokenRequest(pairs: [("client_id", clientID), ("grant_type", "refresh_token"), ("refresh_token", token)] + extra,
                                             authorization: authorization))
    }

    func stored(_ token: String) throws -> RefreshToken? { try store.find(RefreshTokenValue.key(for: token)) }

    /// Whether /userinfo would accept the access token.
    func accessTokenValid(_ token: String) -> Bool {
        (try? AccessTokenValidator.validate(bearer: token, keys: TestSigner.keys, opaque: TestSigner.opaque, issuer: Fixture.issuer, grants: grants,
                                            users: users, clock: clock)) != nil
    }

    /// A JWT's claims, or an opaque access token's contents as the same claims (`TokenInspection`).
    static func claims(_ jwt: String) throws -> [String: JSONValue] {
        if OpaqueAccessTokens.looksOpaque(jwt) { return TokenInspection.claims(of: try TestSigner.opaque.open(jwt), issuer: Fixture.issuer) }
        let part = jwt.split(separator: ".")[1]
        guard case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: Data(try Base64URL.decode(part))) else { throw OAuthError(.invalidRequest, "not an object") }
        return object
    }
}

/// Asserts the exact Auth0 dead-token answer: 400 `{"error":"invalid_grant","error_description":"Unknown or invalid refresh token."}`.
func expectDeadToken(_ body: () throws(OAuthError) -> TokenResponse, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let response = try body()
        Issue.record("expected invalid_grant, got \(response)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == .invalidGrant, "\(error) \(error.detail ?? "")", sourceLocation: sourceLocation)
        #expect(error.httpStatus == 400, sourceLocation: sourceLocation)
        #expect(String(decoding: error.jsonBody(), as: UTF8.self)
                == #"{"error":"invalid_grant","error_description":"Unknown or invalid refresh token."}"#, sourceLocation: sourceLocation)
    }
}

@Suite("Refresh tokens")
struct RefreshGrantTests {
    @Test func issuedOnlyWithOfflineAccessAndTheRefreshGrant() throws {
        let harness = RefreshHarness()
        let response = try harness.signIn()
        let token = try #require(response.refreshToken)
        // rt2.<grant id>.<generation>.<mac>: the MAC is 256 bits, the rest names the family's row.
        let parts = token.split(separator: ".")
        #expect(parts.count == 4 && parts[0] == "rt2" && parts[2] == "0")
        #expect(try Base64URL.decode(parts[3]).count == 32)
        let stored = try #require(try harness.stored(token))
        #expect(String(parts[1]) == stored.grantID && stored.generation == 0 && stored.familySalt?.count == 16)
        // Nothing secret is stored: the stored "hash" is the public name, no digest of the value.
        #expect(stored.tokenHash == "rt2.\(stored.grantID).0")
        #expect(try harness.store.find(tokenHash: token) == nil && (try harness.store.find(tokenHash: RefreshTokens.hash(token))) == nil)
        #expect(stored.clientID == "native-app" && stored.userID == "user-alice" && stored.scope == "openid profile email offline_access")
        #expect(stored.expiresAt == Fixture.epoch + 2_592_000 && stored.isUnused)
        let grant = try #require(try harness.grants.find(grantID: stored.grantID))
        #expect(grant.sessionID == "sid-user-alice")

        #expect(try harness.signIn(scopes: ["openid", "profile"]).refreshToken == nil)
        #expect(try harness.signIn(client: RefreshHarness.noRefresh).refreshToken == nil)
        // Each sign-in is its own family.
        let second = try #require(try harness.signIn().refreshToken)
        #expect(try harness.stored(second)?.grantID != stored.grantID)
    }

    /// Rotation, and D07: the ID token from a refresh has the same iss/sub/aud, the original auth_time, no nonce, a new iat.
    @Test func rotationReturnsNewTokensAndInvalidatesThePresentedOne() throws {
        let harness = RefreshHarness()
        let first = try harness.signIn()
        let r0 = try #require(first.refreshToken)
        harness.clock.advance(by: 3_600)
        let refreshed = try harness.refresh(r0)
        let r1 = try #require(refreshed.refreshToken)
        #expect(r1 != r0)
        #expect(refreshed.tokenType == "Bearer" && refreshed.expiresIn == 86_400 && refreshed.scope == "openid profile email offline_access")
        #expect(refreshed.accessToken != first.accessToken && harness.accessTokenValid(refreshed.accessToken))
        let idToken = try RefreshHarness.claims(try #require(refreshed.idToken))
        let original = try RefreshHarness.claims(try #require(first.idToken))
        #expect(idToken["iss"] == original["iss"] && idToken["sub"] == .string("user-alice") && idToken["aud"] == .string("native-app"))
        #expect(idToken["auth_time"] == .integer(1_800_000_000) && idToken["nonce"] == nil && original["nonce"] != nil)
        #expect(idToken["iat"] == .integer(1_800_003_600))
        #expect(idToken["email"] == .string("alice@example.com"))

        let old = try #require(try harness.stored(r0))
        #expect(old.rotatedAt == harness.clock.now && old.successorHash == RefreshTokenValue.key(for: r1).tokenHash)
        #expect(r1.hasPrefix("rt2.\(old.grantID).1."))
        let new = try #require(try harness.stored(r1))
        #expect(new.grantID == old.grantID && new.expiresAt == old.expiresAt && new.isUnused)
        // The successor keeps rotating.
        harness.clock.advance(by: 60)
        let r2 = try #require(try harness.refresh(r1).refreshToken)
        #expect(r2 != r1 && r2 != r0)
    }

    /// D01: presenting a rotated-out token after the window revokes the family: refresh and access tokens die.
    @Test func reuseRevokesTheWholeFamily() throws {
        let harness = RefreshHarness()
        let r0 = try #require(try harness.signIn().refreshToken)
        let other = try harness.signIn()   // another device: a separate family
        let refreshed = try harness.refresh(r0)
        let r1 = try #require(refreshed.refreshToken)
        harness.clock.advance(by: 11)
        expectDeadToken { () throws(OAuthError) in try harness.refresh(r0) }
        expectDeadToken { () throws(OAuthError) in try harness.refresh(r1) }
        #expect(!harness.accessTokenValid(refreshed.accessToken))
        let grantID = try #require(try harness.stored(r0)).grantID
        let grant = try #require(try harness.grants.find(grantID: grantID))
        #expect(grant.revokedAt != nil && grant.revokeReason == "refresh token reused")
        #expect(try harness.stored(r1)?.revokedAt != nil)
        // The other device's family is untouched.
        #expect(harness.accessTokenValid(other.accessToken))
        #expect(try harness.refresh(try #require(other.refreshToken)).refreshToken != nil)
    }

    /// A retry inside the overlap window gets the same successor; once that successor was used it is reuse.
    @Test func overlapWindowReturnsTheSameSuccessor() throws {
        let harness = RefreshHarness()
        let r0 = try #require(try harness.signIn().refreshToken)
        let first = try harness.refresh(r0)
        let r1 = try #require(first.refreshToken)
        harness.clock.advance(by: 5)
        let retry = try harness.refresh(r0)
        #expect(retry.refreshToken == r1)
        #expect(retry.accessToken != first.accessToken && retry.idToken != nil)
        #expect(harness.accessTokenValid(first.accessToken) && harness.accessTokenValid(retry.accessToken))
        harness.clock.advance(by: 5)   // 10 s: still inside
        #expect(try harness.refresh(r0).refreshToken == r1)

        let r2 = try #require(try harness.refresh(r1).refreshToken)
        // The successor was used: the third presentation of r0 is reuse, even inside the window.
        expectDeadToken { () throws(OAuthError) in try harness.refresh(r0) }
        expectDeadToken { () throws(OAuthError) in try harness.refresh(r2) }
        #expect(!harness.accessTokenValid(retry.accessToken))
    }

    @Test func retryJustOutsideTheWindowIsReuse() throws {
        let harness = RefreshHarness()
        let r0 = try #require(try harness.signIn().refreshToken)
        let r1 = try #require(try harness.refresh(r0).refreshToken)
        harness.clock.advance(by: 11)
        expectDeadToken { () throws(OAuthError) in try harness.refresh(r0) }
        expectDeadToken { () throws(OAuthError) in try harness.refresh(r1) }
    }

    @Test func windowZeroMakesAnySecondPresentationReuse() throws {
        let harness = RefreshHarness()
        let client = RefreshHarness.noWindow
        let r0 = try #require(try harness.signIn(client: client).refreshToken)
        let r1 = try #require(try harness.refresh(r0, clientID: client.clientID).refreshToken)
        expectDeadToken { () throws(OAuthError) in try harness.refresh(r0, clientID: client.clientID) }
        expectDeadToken { () throws(OAuthError) in try harness.refresh(r1, clientID: client.clientID) }
    }

    /// D04: a narrower scope works and the successor keeps the original scope; a broader one is invalid_scope.
    @Test func scopeMayNarrowButNeverWiden() throws {
        let harness = RefreshHarness()
        let r0 = try #require(try harness.signIn().refreshToken)
        let narrowed = try harness.refresh(r0, extra: [("scope", "openid email")])
        #expect(narrowed.scope == "openid email" && narrowed.idToken != nil)
        let idToken = try RefreshHarness.claims(try #require(narrowed.idToken))
        #expect(idToken["email"] != nil && idToken["name"] == nil)
        let accessToken = try RefreshHarness.claims(narrowed.accessToken)
        #expect(accessToken["scope"] == .string("openid email"))
        let r1 = try #require(narrowed.refreshToken)
        #expect(try harness.stored(r1)?.scope == "openid profile email offline_access")
        let full = try harness.refresh(r1)
        #expect(full.scope == "openid profile email offline_access")

        let r2 = try #require(full.refreshToken)
        expectError(.invalidScope) { () throws(OAuthError) in try harness.refresh(r2, extra: [("scope", "openid profile admin")]) }
        expectError(.invalidScope) { () throws(OAuthError) in try harness.refresh(r2, extra: [("scope", "openid phone")]) }
        // Refused before consuming: the token still works.
        #expect(try harness.stored(r2)?.isUnused == true)
        #expect(try harness.refresh(r2).refreshToken != nil)
    }

    @Test func scopeWithoutOpenIDGivesNoIDToken() throws {
        let harness = RefreshHarness()
        let r0 = try #require(try harness.signIn().refreshToken)
        let response = try harness.refresh(r0, extra: [("scope", "offline_access")])
        #expect(response.idToken == nil && response.scope == "offline_access" && response.refreshToken != nil)
    }

    @Test func audienceMayOnlyBeTheGrantsOwn() throws {
        let harness = RefreshHarness()
        let r0 = try #require(try harness.signIn(audience: "https://api.example.com").refreshToken)
        do {
            _ = try harness.refresh(r0, extra: [("audience", "https://other.example.com")])
            Issue.record("expected invalid_request")
        } catch {
            #expect(error.code == .invalidRequest && error.description == "audience not granted")
        }
        #expect(try harness.stored(r0)?.isUnused == true)
        let response = try harness.refresh(r0, extra: [("audience", "https://api.example.com")])
        let claims = try RefreshHarness.claims(response.accessToken)
        #expect(claims["aud"] == .array([.string("https://api.example.com"), .string(Fixture.issuer + "userinfo")]))

        let plain = try #require(try harness.signIn().refreshToken)
        expectError(.invalidRequest) { () throws(OAuthError) in try harness.refresh(plain, extra: [("audience", "https://api.example.com")]) }
    }

    /// D05: absolute lifetime counted from the family's first issue.
    @Test func absoluteLifetimeEndsTheFamily() throws {
        let harness = RefreshHarness()
        let client = RefreshHarness.shortLived
        var token = try #require(try harness.signIn(client: client).refreshToken)
        for _ in 0..<10 {
            harness.clock.advance(by: 90)
            token = try #require(try harness.refresh(token, clientID: client.clientID).refreshToken)
        }
        #expect(try harness.stored(token)?.expiresAt == Fixture.epoch + 1_000)
        harness.clock.advance(by: 100)   // 1000 s since the first issue
        expectDeadToken { () throws(OAuthError) in try harness.refresh(token, clientID: client.clientID) }
    }

    /// D05: inactivity lifetime since the last use.
    @Test func idleLifetimeEndsAnUnusedToken() throws {
        let harness = RefreshHarness()
        let client = RefreshHarness.shortLived
        let r0 = try #require(try harness.signIn(client: client).refreshToken)
        harness.clock.advance(by: 100)
        expectDeadToken { () throws(OAuthError) in try harness.refresh(r0, clientID: client.clientID) }
    }

    /// D08: a blocked user's refresh tokens die.
    @Test func blockedUserGetsInvalidGrant() throws {
        let harness = RefreshHarness()
        let r0 = try #require(try harness.signIn().refreshToken)
        var alice = Fixture.alice
        alice.blocked = true
        try harness.users.update(alice)
        expectDeadToken { () throws(OAuthError) in try harness.refresh(r0) }
    }

    @Test func revokedGrantGetsInvalidGrant() throws {
        let harness = RefreshHarness()
        let r0 = try #require(try harness.signIn().refreshToken)
        let grantID = try #require(try harness.stored(r0)).grantID
        try harness.grants.revoke(grantID: grantID, at: harness.clock.now, reason: "test")
        expectDeadToken { () throws(OAuthError) in try harness.refresh(r0) }
    }

    @Test func unknownOrEmptyTokens() {
        let harness = RefreshHarness()
        expectDeadToken { () throws(OAuthError) in try harness.refresh("no-such-token") }
        expectError(.invalidRequest) { () throws(OAuthError) in try harness.refresh("") }
        expectError(.invalidRequest) { () throws(OAuthError) in
            try harness.endpoint.handle(try TokenRequest(pairs: [("client_id", "native-app"), ("grant_type", "refresh_token")]))
        }
    }

    /// D03: client A's token presented by client B is invalid_grant and does not burn it.
    @Test func anotherClientsTokenIsInvalidGrant() throws {
        let harness = RefreshHarness()
        let r0 = try #require(try harness.signIn().refreshToken)
        expectDeadToken { () throws(OAuthError) in try harness.refresh(r0, clientID: RefreshHarness.other.clientID) }
        #expect(try harness.stored(r0)?.isUnused == true)
        #expect(try harness.refresh(r0).refreshToken != nil)
    }

    /// D06: a confidential client must authenticate to refresh.
    @Test func confidentialClientMustAuthenticate() throws {
        let harness = RefreshHarness()
        let r0 = try #require(try harness.signIn(client: Fixture.web).refreshToken)
        expectError(.invalidClient) { () throws(OAuthError) in try harness.refresh(r0, clientID: Fixture.web.clientID) }
        expectError(.invalidClient) { () throws(OAuthError) in
            try harness.refresh(r0, clientID: Fixture.web.clientID, authorization: harness.basic(Fixture.web.clientID, "wrong"))
        }
        #expect(try harness.stored(r0)?.isUnused == true)
        let response = try harness.refresh(r0, clientID: Fixture.web.clientID, authorization: harness.basic(Fixture.web.clientID, Fixture.secret))
        #expect(response.refreshToken != nil)
    }

    @Test func theRefreshGrantNeedsTheClientToAllowIt() throws {
        let harness = RefreshHarness()
        expectError(.unauthorizedClient) { () throws(OAuthError) in try harness.refresh("x", clientID: RefreshHarness.noRefresh.clientID) }
    }

    @Test func aRefreshIsActivityOfTheSession() throws {
        let harness = RefreshHarness()
        let r0 = try #require(try harness.signIn().refreshToken)
        harness.clock.advance(by: 600)
        _ = try harness.refresh(r0)
        #expect(try harness.sessions.find(sessionID: "sid-user-alice")?.lastSeenAt == Fixture.epoch + 600)
    }

    /// Only an application whose refresh tokens end with the session has the session read: at a
    /// million sessions each read of it is two more B-trees (issue #18).
    @Test func theSessionIsReadOnlyForTokensThatEndWithIt() throws {
        let harness = RefreshHarness()
        let counting = CountingSessionStore(harness.sessions)
        harness.refreshTokens = RefreshTokens(store: harness.store, successorKey: RefreshHarness.successorKey, sessions: counting)
        let survives = try #require(try harness.signIn().refreshToken)
        let ends = try #require(try harness.signIn(client: RefreshHarness.endsWithLogout).refreshToken)
        _ = try harness.refresh(survives)
        #expect(counting.finds == 0)
        _ = try harness.refresh(ends, clientID: RefreshHarness.endsWithLogout.clientID)
        #expect(counting.finds == 1)
    }

    /// `refreshSurvivesLogout` off: ending the session ends the refresh tokens; on (the default) they live on.
    @Test func refreshTokensMayEndWithTheSession() throws {
        let harness = RefreshHarness()
        let survives = try #require(try harness.signIn().refreshToken)
        let ends = try #require(try harness.signIn(client: RefreshHarness.endsWithLogout).refreshToken)
        let next = try #require(try harness.refresh(ends, clientID: RefreshHarness.endsWithLogout.clientID).refreshToken)
        try harness.sessions.end(sessionID: "sid-user-alice", at: harness.clock.now)
        expectDeadToken { () throws(OAuthError) in try harness.refresh(next, clientID: RefreshHarness.endsWithLogout.clientID) }
        #expect(try harness.refresh(survives).refreshToken != nil)
    }

    @Test func successorsAreDeterministicAndKeyed() {
        let harness = RefreshHarness()
        let other = RefreshTokens(store: harness.store, successorKey: Array(repeating: 8, count: 32))
        #expect(harness.refreshTokens.successor(of: "abc") == harness.refreshTokens.successor(of: "abc"))
        #expect(harness.refreshTokens.successor(of: "abc") != harness.refreshTokens.successor(of: "abd"))
        #expect(harness.refreshTokens.successor(of: "abc") != other.successor(of: "abc"))
        #expect((try? Base64URL.decode(harness.refreshTokens.successor(of: "abc")))?.count == 32)
    }

    /// D02 at the protocol level: concurrent refreshes of one token never make two live successors.
    @Test(arguments: [true, false])
    func concurrentRefreshesNeverBranch(window: Bool) throws {
        let harness = RefreshHarness()
        let client = window ? Fixture.native : RefreshHarness.noWindow
        let r0 = try #require(try harness.signIn(client: client).refreshToken)
        _ = harness.endpoint
        let results = SharedBox<[Result<String, OAuthError>]>([])
        DispatchQueue.concurrentPerform(iterations: 50) { _ in
            let result: Result<String, OAuthError>
            do throws(OAuthError) {
                result = .success(try harness.refresh(r0, clientID: client.clientID).refreshToken ?? "")
            } catch {
                result = .failure(error)
            }
            results.withLock { $0.append(result) }
        }
        let all = results.withLock { $0 }
        let successes = all.compactMap { try? $0.get() }
        if window {
            #expect(successes.count == 50 && Set(successes).count == 1)
        } else {
            #expect(successes.count == 1)
            #expect(all.filter { if case .failure(let error) = $0 { error.code == .invalidGrant } else { false } }.count == 49)
            // The losers' reuse revoked the family, the winner's successor included.
            expectDeadToken { () throws(OAuthError) in try harness.refresh(successes[0], clientID: client.clientID) }
        }
    }
}

/// A value shared between threads under a lock.
final class SharedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock(); defer { lock.unlock() }
        return body(&value)
    }
}

/// A session store that counts the sessions read by id.
final class CountingSessionStore: SessionStore, @unchecked Sendable {
    let base: any SessionStore
    private let box = SharedBox(0)
    var finds: Int { box.withLock { $0 } }

    init(_ base: any SessionStore) { self.base = base }

    func create(_ session: Session) throws(StorageError) { try base.create(session) }
    func find(cookieHash: String) throws(StorageError) -> Session? { try base.find(cookieHash: cookieHash) }
    func find(sessionID: String) throws(StorageError) -> Session? {
        box.withLock { $0 += 1 }
        return try base.find(sessionID: sessionID)
    }
    func list(userID: String) throws(StorageError) -> [Session] { try base.list(userID: userID) }
    func end(sessionID: String, at time: Date) throws(StorageError) { try base.end(sessionID: sessionID, at: time) }
}
