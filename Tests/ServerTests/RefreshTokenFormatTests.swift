import Crypto
import Foundation
import Model
import OIDC
import SQLite
import Storage
import Testing
import TestSupport

/// Refresh tokens that name their place (`rt1.<grant>.<generation>.<secret>`, migration 0015) through
/// the real routes on a real SQLite file: tokens issued before keep working and rotate into the
/// new shape, reuse and revocation behave as before, and a value naming a real place with a wrong
/// secret is only an unknown token.
@Suite("Refresh token format")
struct RefreshTokenFormatTests {
    static let client = "fmt-app"
    static let callback = "com.example.app://callback"

    /// A harness with an application (no overlap window), a user, a grant and one token of the
    /// earlier shape (43 base64url characters, found by its digest).
    func harness() throws -> (RouteHarness, legacy: String, grantID: String) {
        let harness = try RouteHarness()
        try SQLiteClientStore(store: harness.store).create(Client(
            clientID: Self.client, name: "Format", type: .native, grantTypes: [.authorizationCode, .refreshToken],
            refreshReuseInterval: 0, callbacks: [Self.callback], createdAt: Date()))
        try SQLiteUserStore(store: harness.store).create(User(userID: "auth0|fmt", email: "fmt@example.com", createdAt: Date()))
        let grantID = Random.token(bytes: 16)
        try SQLiteGrantStore(store: harness.store).create(Grant(grantID: grantID, clientID: Self.client, userID: "auth0|fmt",
                                                                sessionID: nil, scope: "openid offline_access", authTime: Date(),
                                                                createdAt: Date()))
        let legacy = Random.token(bytes: 32)
        try SQLiteRefreshTokenStore(store: harness.store).insert(RefreshToken(
            tokenHash: SecretDigest.hash(legacy), grantID: grantID, clientID: Self.client, userID: "auth0|fmt",
            scope: "openid offline_access", issuedAt: Date(), expiresAt: Date().addingTimeInterval(86_400)))
        return (harness, legacy, grantID)
    }

    func refresh(_ harness: RouteHarness, _ token: String) -> (status: Int, token: String?, error: String?) {
        let answer = harness.postJSON("/oauth/token", ["grant_type": "refresh_token", "client_id": Self.client, "refresh_token": token])
        return (answer.status, answer.json["refresh_token"] as? String, answer.json["error"] as? String)
    }

    @Test func anEarlierTokenRotatesIntoThePositionedShape() throws {
        let (harness, legacy, grantID) = try harness()
        let first = refresh(harness, legacy)
        #expect(first.status == 200)
        let successor = try #require(first.token)
        #expect(successor.hasPrefix("rt1.\(grantID).1."), "\(successor)")
        let second = refresh(harness, successor)
        #expect(second.status == 200 && second.token?.hasPrefix("rt1.\(grantID).2.") == true)
        // The positioned tokens are not in the digest index; the earlier one still is.
        let indexed = try harness.store.database.read { connection in
            try connection.queryOne("SELECT count(*) FROM refresh_tokens INDEXED BY refresh_tokens_by_hash WHERE found_by_hash = 1")?.int(0)
        }
        #expect(indexed == 1)
    }

    @Test func reuseOfAnEarlierTokenStillRevokesTheFamily() throws {
        let (harness, legacy, _) = try harness()
        let successor = try #require(refresh(harness, legacy).token)
        #expect(refresh(harness, legacy).error == "invalid_grant")
        #expect(refresh(harness, successor).error == "invalid_grant", "the family survived the reuse")
    }

    @Test func reuseOfAPositionedTokenRevokesTheFamily() throws {
        let (harness, legacy, _) = try harness()
        let one = try #require(refresh(harness, legacy).token)
        let two = try #require(refresh(harness, one).token)
        #expect(refresh(harness, one).error == "invalid_grant")
        #expect(refresh(harness, two).error == "invalid_grant", "the family survived the reuse")
    }

    /// The right grant and generation with another secret: unknown, and the real token unharmed.
    @Test func aForgedSecretAtARealPlaceIsUnknown() throws {
        let (harness, legacy, grantID) = try harness()
        let live = try #require(refresh(harness, legacy).token)
        let forged = "rt1.\(grantID).1.\(Random.token(bytes: 32))"
        let answer = refresh(harness, forged)
        #expect(answer.status == 400 && answer.error == "invalid_grant")
        #expect(refresh(harness, live).status == 200)
    }

    @Test func revocationFindsAPositionedToken() throws {
        let (harness, legacy, _) = try harness()
        let live = try #require(refresh(harness, legacy).token)
        #expect(harness.postJSON("/oauth/revoke", ["token": live, "client_id": Self.client]).status == 200)
        #expect(refresh(harness, live).error == "invalid_grant")
    }
}
