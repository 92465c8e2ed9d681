import Crypto
import Foundation
import HTTP
import Model
import OIDC
import Storage
import Testing
import TestSupport

/// Opaque access tokens (no audience) through the real routes: `/userinfo` accepts them, and
/// every altered, foreign, expired or revoked one gets the same exact 401 (RFC 6750 §3.1).
@Suite("Opaque access tokens over HTTP")
struct OpaqueAccessTokenRouteTests {
    static let challenge = #"Bearer realm="https://id.example.com/", error="invalid_token", error_description="the access token is invalid""#
    static let body = #"{"error":"invalid_token","error_description":"the access token is invalid"}"#

    static func edit(_ token: String, _ change: (inout [UInt8]) -> Void) throws -> String {
        var bytes = try Base64URL.decode(token.dropFirst(3))
        change(&bytes)
        return "at_" + Base64URL.encode(bytes)
    }

    static let alterations: [(String, @Sendable (String) throws -> String)] = [
        ("tampered", { try edit($0) { $0[30] ^= 0x01 } }),
        ("truncated", { try edit($0) { $0.removeLast(4) } }),
        ("truncated below its header", { String($0.prefix(20)) }),
        ("wrong version", { try edit($0) { $0[0] = 2 } }),
        ("wrong key", { _ in
            try OpaqueAccessTokens(key: Array(repeating: 9, count: 32)).seal(OpaqueAccessTokenPayload(
                grantID: "g", userID: "auth0|alice", clientID: "app-1", scope: "openid", issuedAt: 0, expiresAt: Int64.max)) }),
    ]

    func expectRefused(_ response: RouteHarness.Response, _ name: String) {
        #expect(response.status == 401, "\(name)")
        #expect(response.headers["WWW-Authenticate"] == Self.challenge, "\(name)")
        #expect(response.text == Self.body, "\(name)")
        #expect(response.headers["Cache-Control"] == "no-store", "\(name)")
    }

    @Test func userinfoAcceptsTheOpaqueTokenAndRefusesEveryAlteration() throws {
        let clock = MutableClock(Date())
        let rig = try CatalogueRig(clock: clock)
        let tokens = rig.tokens()
        let access = try #require(tokens["access_token"] as? String)
        #expect(access.hasPrefix("at_") && access.split(separator: ".").count == 1)
        #expect(tokens["token_type"] as? String == "Bearer" && tokens["expires_in"] as? Int == 86_400)
        let ok = rig.userinfo(access)
        #expect(ok.status == 200 && CatalogueRig.json(ok.text)?["sub"] as? String == "auth0|alice")
        for (name, alter) in Self.alterations { expectRefused(rig.userinfo(try alter(access)), name) }
        clock.advance(by: 86_400)
        expectRefused(rig.userinfo(access), "expired")
    }

    /// The refresh returns a new opaque token; revoking an opaque access token revokes its grant, so
    /// the refresh token and every access token of the family die with it.
    @Test func revokingAnOpaqueTokenRevokesItsGrant() throws {
        let rig = try CatalogueRig()
        let tokens = rig.tokens()
        let access = try #require(tokens["access_token"] as? String)
        let refreshToken = try #require(tokens["refresh_token"] as? String)
        let refreshed = try #require(CatalogueRig.json(rig.refresh(refreshToken).text))
        let second = try #require(refreshed["access_token"] as? String)
        #expect(second.hasPrefix("at_") && second != access && rig.userinfo(second).status == 200)
        #expect(rig.harness.post("/oauth/revoke", form: [("token", access), ("client_id", "app-1")]).status == 200)
        expectRefused(rig.userinfo(access), "revoked")
        expectRefused(rig.userinfo(second), "revoked with its grant")
        let successor = try #require(refreshed["refresh_token"] as? String)
        let dead = rig.refresh(successor)
        #expect(dead.status == 400 && CatalogueRig.json(dead.text)?["error"] as? String == "invalid_grant")
    }

    /// `/userinfo` learns of a revocation from `revoked_grants` (migration 0020), which the purge
    /// empties once the access tokens have expired. An application whose lifetime was lowered still
    /// has tokens out with the longer one: the revocation is kept for that longer lifetime.
    @Test func aRevocationOutlivesALoweredLifetime() throws {
        let clock = MutableClock(Date())
        let rig = try CatalogueRig(clock: clock)
        let access = try #require(rig.tokens()["access_token"] as? String)
        let clients = SQLiteClientStore(store: rig.harness.store)
        var client = try #require(try clients.find(clientID: "app-1"))
        client.accessTokenLifetime = 60
        try clients.update(client)
        #expect(rig.userinfo(access).status == 200, "a token minted with the longer lifetime lives on")
        #expect(rig.harness.post("/oauth/revoke", form: [("token", access), ("client_id", "app-1")]).status == 200)
        clock.advance(by: 3_600)
        _ = try Purger(store: rig.harness.store).purge(RetentionPolicy(), at: clock.now)
        expectRefused(rig.userinfo(access), "revoked, an hour later, after a purge")
        clock.advance(by: 86_400 - 3_600 - 1)
        _ = try Purger(store: rig.harness.store).purge(RetentionPolicy(), at: clock.now)
        expectRefused(rig.userinfo(access), "revoked, a second before its expiry, after a purge")
    }
}
