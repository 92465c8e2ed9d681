import Crypto
import Foundation
import Model
import OIDC
import SQLite
import Storage
import Testing
import TestSupport

/// Refresh tokens of one-row families (`rt2.<grant>.<generation>.<mac>`, migration 0017) through the
/// real routes on a real SQLite file: tokens issued before (`rt1.…`, migration 0015, and digest-only
/// ones) keep working and rotate into a family, reuse and revocation behave as before, a rotation
/// adds no row, and a value naming a real place with a wrong secret or MAC is only an unknown token.
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

    @Test func anEarlierTokenRotatesIntoAFamily() throws {
        let (harness, legacy, grantID) = try harness()
        let first = refresh(harness, legacy)
        #expect(first.status == 200)
        let successor = try #require(first.token)
        #expect(successor.hasPrefix("rt2.\(grantID).1."), "\(successor)")
        var next = successor
        for generation in 2...5 {
            let answer = refresh(harness, next)
            #expect(answer.status == 200 && answer.token?.hasPrefix("rt2.\(grantID).\(generation).") == true)
            next = try #require(answer.token)
        }
        // Five rotations: the earlier token's row and one family row at generation 5, nothing more.
        let rows = try harness.store.database.read { connection in
            (try connection.queryOne("SELECT count(*) FROM refresh_tokens INDEXED BY refresh_tokens_by_hash WHERE found_by_hash = 1")?.int(0),
             try connection.queryOne("SELECT count(*) FROM refresh_tokens")?.int(0),
             try connection.queryOne("SELECT refresh_generation FROM grants WHERE grant_id = ?", [.text(grantID)])?.int(0))
        }
        #expect(rows.0 == 1 && rows.1 == 1 && rows.2 == 5)
    }

    /// An `rt1` token (migration 0015 to 0017) rotates into a family at its next generation.
    @Test func anRT1TokenRotatesIntoAFamily() throws {
        let (harness, _, grantID) = try harness()
        let rt1 = "rt1.\(grantID).3.\(Random.token(bytes: 32))"
        try SQLiteRefreshTokenStore(store: harness.store).insert(RefreshToken(
            tokenHash: SecretDigest.hash(rt1), grantID: grantID, clientID: Self.client, userID: "auth0|fmt",
            scope: "openid offline_access", issuedAt: Date(), expiresAt: Date().addingTimeInterval(86_400), generation: 3))
        let answer = refresh(harness, rt1)
        #expect(answer.status == 200 && answer.token?.hasPrefix("rt2.\(grantID).4.") == true)
        #expect(refresh(harness, rt1).error == "invalid_grant", "reuse of the rt1 token")
        #expect(refresh(harness, try #require(answer.token)).error == "invalid_grant", "the family survived the reuse")
    }

    /// A family value with another MAC, or a generation ahead of the family's: unknown, the real token unharmed.
    @Test(arguments: ["mac", "generation"])
    func aForgedFamilyValueIsUnknown(_ part: String) throws {
        let (harness, legacy, grantID) = try harness()
        let live = try #require(refresh(harness, legacy).token)
        let mac = String(live.split(separator: ".")[3])
        let forged = part == "mac" ? "rt2.\(grantID).1.\(Random.token(bytes: 32))" : "rt2.\(grantID).2.\(mac)"
        let answer = refresh(harness, forged)
        #expect(answer.status == 400 && answer.error == "invalid_grant")
        #expect(harness.postJSON("/oauth/revoke", ["token": forged, "client_id": Self.client]).status == 200)
        #expect(refresh(harness, live).status == 200, "neither the refresh nor the revocation of a forgery touched the family")
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
