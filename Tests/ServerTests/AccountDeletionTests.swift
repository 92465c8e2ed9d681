import Crypto
import Foundation
import KeyManagement
import Logging
import Model
import OIDC
import SQLite
import Storage
import Testing
import TestSupport
@testable import Server

/// `DELETE /api/v2/users/{id}` and Apple's notifications over the daemon's routes, with a real
/// Apple stand-in holding the refresh token Alice got natively: who may delete (a recent login,
/// the right scope, the own id; a machine with `delete:users`), what goes, the pseudonymous audit,
/// the revocation at Apple (retried by the background sender), and every notification type.
@Suite(.serialized) struct AccountDeletionTests {
    static let strong = "Tr0ubadour-horse"
    static let m2mSecret = "m2m-secret-0123456789abcdef"
    /// Whole seconds, as the queue stores times: a retry due in 15 s is due after exactly 15 s.
    let clock = MutableClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    let harness: RouteHarness
    let stub: AppleGoogleStub
    let tokenKey: [UInt8]
    /// The Apple refresh token stored for Alice's identity (issued by the stand-in to the bundle id).
    let appleRefreshToken: String
    static let appleSubject = "001234.alice.apple"

    init() throws {
        stub = try AppleGoogleStub(.apple)
        harness = try RouteHarness(clock: clock)
        let store = harness.store
        let manager = try KeyManager.open(store: store, settings: harness.settings)
        tokenKey = manager.derivedKey(purpose: UpstreamTokenKey.purpose)
        let clients = SQLiteClientStore(store: store)
        try clients.create(Client(clientID: "app", name: "App", type: .native, grantTypes: [.authorizationCode, .refreshToken, .passwordRealm],
                                  callbacks: ["com.example.app://cb"], createdAt: Date()))
        try clients.create(Client(clientID: "ops", name: "Ops", type: .m2m, secretHash: SecretDigest.hash(Self.m2mSecret), createdAt: Date()))
        try clients.create(Client(clientID: "reader", name: "Reader", type: .m2m, secretHash: SecretDigest.hash(Self.m2mSecret), createdAt: Date()))
        let apis = SQLiteAPIStore(store: store)
        try apis.create(API(apiID: "mgmt", identifier: harness.issuer + "api/v2/", name: "Management", scopes: ["delete:users", "read:users"],
                            createdAt: Date()))
        try apis.grant(ClientGrant(clientID: "ops", apiID: "mgmt", scopes: ["delete:users"], createdAt: Date()))
        try apis.grant(ClientGrant(clientID: "reader", apiID: "mgmt", scopes: ["read:users"], createdAt: Date()))
        let users = SQLiteUserStore(store: store)
        for name in ["alice", "bob"] {
            try users.create(User(userID: "auth0|\(name)", email: "\(name)@example.com", emailVerified: true,
                                  passwordHash: try PasswordHash.hash(Self.strong), createdAt: Date()))
        }
        let connections = SQLiteConnectionStore(store: store, key: manager.derivedKey(purpose: ConnectionSecretKey.purpose))
        try connections.create(UpstreamConnection(
            name: "apple", strategy: .apple, clientID: stub.clientID, privateKey: stub.privateKeyPEM, teamID: stub.teamID, keyID: stub.keyID,
            tokenURL: stub.tokenURL, jwksURL: stub.jwksURL, revokeURL: stub.revokeURL, issuer: stub.issuer,
            nativeAudiences: stub.nativeClientIDs, createdAt: Date()))
        try SQLiteIdentityStore(store: store).link(Identity(connection: "apple", subject: Self.appleSubject, userID: "auth0|alice", createdAt: Date()))
        // Alice signed in natively once: the code was redeemed as the bundle id, and the refresh token kept.
        let connection = try #require(try connections.find(name: "apple"))
        let secret = try AppleClientSecret(clock: SystemClock()).secret(for: connection, clientID: "com.example.app")
        let redeemed = try stub.redeem(form: [("grant_type", "authorization_code"), ("code", try stub.nativeCode(clientID: "com.example.app",
                                                                                                               subject: Self.appleSubject)),
                                              ("client_id", "com.example.app"), ("client_secret", secret)])
        appleRefreshToken = try #require(redeemed.json["refresh_token"] as? String)
        try SQLiteUpstreamTokenStore(store: store, key: tokenKey).setRefreshToken(
            UpstreamRefreshToken(token: appleRefreshToken, clientID: "com.example.app"), connection: "apple", subject: Self.appleSubject, at: Date())
    }

    // MARK: - helpers

    struct Tokens {
        let access: String
        let refresh: String
    }

    func signIn(_ name: String = "alice", scope: String = "openid offline_access delete:current_user") throws -> Tokens {
        let response = harness.postJSON("/oauth/token", [
            "grant_type": "http://auth0.com/oauth/grant-type/password-realm", "username": "\(name)@example.com", "password": Self.strong,
            "realm": "Username-Password-Authentication", "client_id": "app", "scope": scope, "audience": harness.issuer + "api/v2/",
        ])
        #expect(response.status == 200, "\(response.text)")
        return Tokens(access: try #require(response.json["access_token"] as? String), refresh: response.json["refresh_token"] as? String ?? "")
    }

    func machineToken(_ client: String) throws -> String {
        let response = harness.post("/oauth/token", form: [("grant_type", "client_credentials"), ("client_id", client),
                                                           ("client_secret", Self.m2mSecret), ("audience", harness.issuer + "api/v2/")])
        #expect(response.status == 200, "\(response.text)")
        return try #require(response.json["access_token"] as? String)
    }

    func delete(_ userID: String, token: String?) -> RouteHarness.Response {
        harness.send("DELETE", "/api/v2/users/" + RouteHarness.encode(userID), headers: token.map { [("Authorization", "Bearer " + $0)] } ?? [],
                     body: [], from: "198.51.100.7")
    }

    func refresh(_ token: String) -> RouteHarness.Response {
        harness.postJSON("/oauth/token", ["grant_type": "refresh_token", "refresh_token": token, "client_id": "app"])
    }

    func count(_ sql: String, _ values: [SQLValue] = []) throws -> Int {
        try harness.store.database.read { try $0.queryOne(sql, values)?.int(0) ?? -1 }
    }

    func sender() -> UpstreamRevocationSender {
        let manager = try! KeyManager.open(store: harness.store, settings: harness.settings)
        return UpstreamRevocationSender(queue: SQLiteUpstreamRevocationQueue(store: harness.store, key: tokenKey),
                                        connections: SQLiteConnectionStore(store: harness.store, key: manager.derivedKey(purpose: ConnectionSecretKey.purpose)),
                                        fetcher: CurlUpstreamFetcher(), secrets: AppleClientSecret(clock: clock),
                                        logger: Logger(level: .error, sink: .memory()), clock: clock)
    }

    // MARK: - deletion

    @Test func deletionWithoutARecentLoginIsRefusedWithTheReauthenticationMessage() throws {
        let tokens = try signIn()
        clock.advance(by: 601)
        let response = delete("auth0|alice", token: tokens.access)
        #expect(response.status == 403)
        #expect(response.json["errorCode"] as? String == "login_required")
        #expect(response.json["message"] as? String
            == "Deleting the account needs a recent login: sign the user in again (for example with max_age=0) and retry within 10 minutes.")
        #expect(try SQLiteUserStore(store: harness.store).find(userID: "auth0|alice") != nil)
        // A new login (what max_age=0 forces) is recent enough.
        #expect(delete("auth0|alice", token: try signIn().access).status == 204)
    }

    @Test func aUserDeletesTheirOwnAccountAndAppleIsToldAfterTwoFailures() throws {
        let tokens = try signIn()
        harness.routes.flushAudit()
        #expect(try count("SELECT count(*) FROM audit_events WHERE user_id = 'auth0|alice'") > 0)
        let response = delete("auth0|alice", token: tokens.access)
        #expect(response.status == 204, "\(response.text)")
        #expect(response.text.isEmpty)
        harness.routes.flushAudit()

        // Everything of Alice's is gone; her refresh token says she does not exist.
        #expect(try SQLiteUserStore(store: harness.store).find(userID: "auth0|alice") == nil)
        #expect(try SQLiteIdentityStore(store: harness.store).find(connection: "apple", subject: Self.appleSubject) == nil)
        for table in ["sessions", "grants", "authorization_codes", "password_history", "identities"] {
            #expect(try count("SELECT count(*) FROM \(table) WHERE user_id = 'auth0|alice'") == 0, "\(table)")
        }
        let refused = refresh(tokens.refresh)
        #expect(refused.status == 400 && refused.json["error"] as? String == "invalid_grant")
        #expect(refused.json["error_description"] as? String == "The refresh_token was generated for a user who doesn't exist anymore.")
        // The access token is dead too.
        #expect(delete("auth0|alice", token: tokens.access).status == 401)

        // The audit trail keeps what happened under a pseudonym, with neither her id nor her email.
        #expect(try count("SELECT count(*) FROM audit_events WHERE user_id = 'auth0|alice' OR details LIKE '%alice@example.com%'") == 0)
        let pseudonym = SQLiteAccountDeletion.pseudonym(userID: "auth0|alice",
                                                        key: try KeyManager.open(store: harness.store, settings: harness.settings)
                                                            .derivedKey(purpose: AuditPseudonymKey.purpose))
        #expect(pseudonym.hasPrefix("deleted|") && pseudonym.count == 40)
        #expect(try count("SELECT count(*) FROM audit_events WHERE user_id = ?1 AND event = 'user.deleted'", [.text(pseudonym)]) == 1)
        #expect(try count("SELECT count(*) FROM audit_events WHERE user_id = ?1", [.text(pseudonym)]) >= 2)

        // One revocation waits, its token sealed: the database holds no token in clear.
        #expect(try SQLiteUpstreamRevocationQueue.pending(in: harness.store) == 1)
        #expect(try count("SELECT count(*) FROM upstream_revocations WHERE instr(sealed_token, ?1) > 0", [.blob(Array(appleRefreshToken.utf8))]) == 0)

        // Apple fails twice; the sender retries after 15 s and 30 s, then Apple confirms.
        try stub.failRevocations(times: 2)
        let sender = sender()
        #expect(sender.drain() == 1)
        #expect(try stub.revocations().isEmpty)
        #expect(sender.drain() == 0)  // not due yet
        clock.advance(by: 15)
        #expect(sender.drain() == 1)
        clock.advance(by: 30)
        #expect(sender.drain() == 1)
        let revoked = try #require(try stub.revocations().first)
        #expect(revoked.token == appleRefreshToken && revoked.known)
        #expect(revoked.clientID == "com.example.app" && revoked.tokenTypeHint == "refresh_token")
        #expect(revoked.clientSecretClaims["iss"] == stub.teamID && revoked.clientSecretClaims["sub"] == "com.example.app"
            && revoked.clientSecretClaims["aud"] == "https://appleid.apple.com")
        let entry = try #require(try SQLiteUpstreamRevocationQueue.list(in: harness.store, limit: 10).first)
        #expect(entry.status == .done && entry.attempts == 3 && entry.lastError?.contains("503") == true)
        #expect(try count("SELECT count(*) FROM upstream_revocations WHERE sealed_token IS NOT NULL") == 0)
        #expect(sender.drain() == 0)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let userID: String
        let token: Token
        let status: Int
        let errorCode: String
        let message: String
        enum Token: Sendable { case none, own, withoutScope, userinfo, reader }
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        .init(name: "no token", userID: "auth0|alice", token: .none, status: 401, errorCode: "invalid_token", message: "Missing authentication"),
        .init(name: "another user's id", userID: "auth0|bob", token: .own, status: 403, errorCode: "insufficient_scope",
              message: "This token may only be used for its own user (auth0|alice)."),
        .init(name: "no delete:current_user", userID: "auth0|alice", token: .withoutScope, status: 403, errorCode: "insufficient_scope",
              message: "Insufficient scope, expected any of: delete:current_user"),
        .init(name: "a userinfo token", userID: "auth0|alice", token: .userinfo, status: 401, errorCode: "invalid_token", message: "Invalid token"),
        .init(name: "a machine without delete:users", userID: "auth0|bob", token: .reader, status: 403, errorCode: "insufficient_scope",
              message: "Insufficient scope, expected any of: delete:users"),
    ]

    @Test(arguments: refusals)
    func aRefusedDeletionChangesNothing(_ row: Refusal) throws {
        let token: String? = switch row.token {
        case .none: nil
        case .own: try signIn().access
        case .withoutScope: try signIn(scope: "openid read:current_user").access
        case .userinfo: try #require(harness.postJSON("/oauth/token", [
            "grant_type": "http://auth0.com/oauth/grant-type/password-realm", "username": "alice@example.com", "password": Self.strong,
            "realm": "Username-Password-Authentication", "client_id": "app", "scope": "openid",
        ]).json["access_token"] as? String)
        case .reader: try machineToken("reader")
        }
        let response = delete(row.userID, token: token)
        #expect(response.status == row.status, "\(response.text)")
        #expect(response.json["errorCode"] as? String == row.errorCode)
        #expect(response.json["message"] as? String == row.message)
        #expect(response.json["statusCode"] as? Int == row.status)
        #expect(try count("SELECT count(*) FROM users") == 2)
        #expect(try count("SELECT count(*) FROM upstream_revocations") == 0)
    }

    @Test func aMachineWithDeleteUsersDeletesAnyUserAndAnUnknownOneIs404() throws {
        let bob = try signIn("bob")
        let token = try machineToken("ops")
        let response = delete("auth0|bob", token: token)
        #expect(response.status == 204, "\(response.text)")
        #expect(try SQLiteUserStore(store: harness.store).find(userID: "auth0|bob") == nil)
        #expect(refresh(bob.refresh).json["error_description"] as? String == "The refresh_token was generated for a user who doesn't exist anymore.")
        let unknown = delete("auth0|nobody", token: token)
        #expect(unknown.status == 404 && unknown.json["errorCode"] as? String == "inexistent_user")
        // Bob had no Apple identity: nothing to revoke.
        #expect(try count("SELECT count(*) FROM upstream_revocations") == 0)
        harness.routes.flushAudit()
        #expect(try count("SELECT count(*) FROM audit_events WHERE event = 'user.deleted' AND client_id = 'ops' AND actor = 'client'") == 1)
    }

    // MARK: - Apple's notifications

    func notify(_ payload: String) -> RouteHarness.Response {
        harness.postJSON("/login/apple/notifications", ["payload": payload])
    }

    @Test(arguments: [AppleGoogleStub.Event.consentRevoked, .accountDelete])
    func consentRevokedAndAccountDeleteEndTheUsersSessionsAndTokens(_ event: AppleGoogleStub.Event) throws {
        let tokens = try signIn()
        let response = notify(try stub.notificationPayload(event: event, subject: Self.appleSubject, audience: "com.example.app"))
        #expect(response.status == 200, "\(response.text)")
        #expect(refresh(tokens.refresh).json["error"] as? String == "invalid_grant")
        #expect(try count("SELECT count(*) FROM grants WHERE user_id = 'auth0|alice' AND revoked_at IS NULL") == 0)
        // The stored Apple token is void at Apple already: nothing is left to revoke.
        #expect(try SQLiteUpstreamTokenStore(store: harness.store, key: tokenKey).refreshToken(connection: "apple", subject: Self.appleSubject) == nil)
        // The user still exists (Apple's event ends access; deleting is the user's or operator's call).
        #expect(try SQLiteUserStore(store: harness.store).find(userID: "auth0|alice") != nil)
        harness.routes.flushAudit()
        let name = event == .consentRevoked ? "upstream.apple_consent_revoked" : "upstream.apple_account_deleted"
        #expect(try count("SELECT count(*) FROM audit_events WHERE event = ?1 AND user_id = 'auth0|alice'", [.text(name)]) == 1)
    }

    @Test func emailDisabledAndEnabledAreRecordedOnTheIdentity() throws {
        let store = SQLiteUpstreamTokenStore(store: harness.store, key: tokenKey)
        #expect(try store.emailForwarding(connection: "apple", subject: Self.appleSubject) == nil)
        let tokens = try signIn()
        #expect(notify(try stub.notificationPayload(event: .emailDisabled, subject: Self.appleSubject, email: "x@privaterelay.appleid.com")).status == 200)
        #expect(try store.emailForwarding(connection: "apple", subject: Self.appleSubject) == false)
        #expect(notify(try stub.notificationPayload(event: .emailEnabled, subject: Self.appleSubject, email: "x@privaterelay.appleid.com")).status == 200)
        #expect(try store.emailForwarding(connection: "apple", subject: Self.appleSubject) == true)
        // Access is untouched.
        #expect(refresh(tokens.refresh).status == 200)
    }

    @Test func anUnknownSubjectIsAnsweredOKAndChangesNothing() throws {
        let tokens = try signIn()
        #expect(notify(try stub.notificationPayload(event: .consentRevoked, subject: "999.nobody")).status == 200)
        #expect(refresh(tokens.refresh).status == 200)
    }

    @Test(arguments: ["forged", "unsigned", "wrong issuer", "unknown audience", "too old", "not JSON"])
    func aNotificationThatDoesNotVerifyIsRefusedAndChangesNothing(_ name: String) throws {
        let tokens = try signIn()
        let response: RouteHarness.Response
        switch name {
        case "forged": response = notify(try stub.notificationPayload(event: .consentRevoked, subject: Self.appleSubject, forged: true))
        case "unsigned": response = notify(try stub.notificationPayload(event: .consentRevoked, subject: Self.appleSubject, unsigned: true))
        case "wrong issuer": response = notify(try stub.notificationPayload(event: .consentRevoked, subject: Self.appleSubject,
                                                                           issuer: "https://appleid.apple.com"))
        case "unknown audience": response = notify(try stub.notificationPayload(event: .consentRevoked, subject: Self.appleSubject,
                                                                               audience: "com.someone.else"))
        case "too old": response = notify(try stub.notificationPayload(event: .consentRevoked, subject: Self.appleSubject, iatOffset: -7200))
        default: response = harness.send("POST", "/login/apple/notifications", headers: [("Content-Type", "application/json")],
                                         body: Array("payload=x".utf8), from: "17.0.0.1")
        }
        #expect(response.status == 400, "\(name): \(response.text)")
        #expect(response.json["error"] as? String == "invalid_request")
        #expect(refresh(tokens.refresh).status == 200, "\(name)")
        #expect(try SQLiteUpstreamTokenStore(store: harness.store, key: tokenKey).refreshToken(connection: "apple", subject: Self.appleSubject) != nil)
    }
}
