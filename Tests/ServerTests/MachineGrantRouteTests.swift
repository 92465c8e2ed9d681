import Crypto
import Foundation
import Model
import SQLite
import Storage
import Testing
import TestSupport
@testable import Server

/// `client_credentials` tokens over the daemon's routes on a real SQLite file: issuing one writes
/// no grant, and a revocation (RFC 7009) or the application's deletion still ends it at
/// introspection (RFC 7662) and at the Management API.
@Suite(.serialized) struct MachineGrantRouteTests {
    static let secret = "m2m-secret-0123456789abcdef"
    let clock = MutableClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    let harness: RouteHarness

    init() throws {
        harness = try RouteHarness(clock: clock)
        let clients = SQLiteClientStore(store: harness.store)
        for id in ["ops", "other"] {
            try clients.create(Client(clientID: id, name: id, type: .m2m, secretHash: SecretDigest.hash(Self.secret), createdAt: Date()))
        }
        let apis = SQLiteAPIStore(store: harness.store)
        try apis.create(API(apiID: "mgmt", identifier: harness.issuer + "api/v2/", name: "Management", scopes: ["delete:users"],
                            tokenLifetime: 900, createdAt: Date()))
        for id in ["ops", "other"] { try apis.grant(ClientGrant(clientID: id, apiID: "mgmt", scopes: ["delete:users"], createdAt: Date())) }
        try SQLiteUserStore(store: harness.store).create(User(userID: "auth0|bob", email: "bob@example.com", createdAt: Date()))
    }

    func token(_ client: String = "ops") throws -> String {
        let response = harness.post("/oauth/token", form: [("grant_type", "client_credentials"), ("client_id", client),
                                                           ("client_secret", Self.secret), ("audience", harness.issuer + "api/v2/")])
        #expect(response.status == 200, "\(response.text)")
        return try #require(response.json["access_token"] as? String)
    }

    func introspect(_ token: String, as client: String = "ops") -> RouteHarness.Response {
        harness.post("/oauth/introspect", form: [("client_id", client), ("client_secret", Self.secret), ("token", token)])
    }

    func revoke(_ token: String, as client: String = "ops") -> RouteHarness.Response {
        harness.post("/oauth/revoke", form: [("client_id", client), ("client_secret", Self.secret), ("token", token)])
    }

    func deleteBob(_ token: String) -> RouteHarness.Response {
        harness.send("DELETE", "/api/v2/users/" + RouteHarness.encode("auth0|bob"), headers: [("Authorization", "Bearer " + token)],
                     body: [], from: "198.51.100.7")
    }

    func count(_ sql: String) throws -> Int {
        try harness.store.database.read { try $0.queryOne(sql, [])?.int(0) ?? -1 }
    }

    func claims(_ token: String) throws -> [String: Any] {
        let payload = try Base64URL.decode(String(token.split(separator: ".")[1]))
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }

    @Test func issuingATokenWritesNoGrant() throws {
        for _ in 0..<3 { _ = try token() }
        #expect(try count("SELECT count(*) FROM grants") == 0)
        #expect(try count("SELECT count(*) FROM revoked_grants") == 0)
    }

    @Test func aRevokedTokenIsRefusedEverywhereAndRememberedUntilItExpires() throws {
        let revoked = try token(), kept = try token()
        #expect(introspect(revoked).json["active"] as? Bool == true)
        // Another application's revocation changes nothing (RFC 7009 §2.1), and answers the same.
        #expect(revoke(revoked, as: "other").status == 200)
        #expect(introspect(revoked).json["active"] as? Bool == true)

        #expect(revoke(revoked).status == 200)
        #expect(revoke(revoked).status == 200, "a second revocation is answered the same")
        let grantID = try #require(try claims(revoked)["grant_id"] as? String)
        let exp = Int64(try #require(try claims(revoked)["exp"] as? Int))
        let remembered = try harness.store.database.read {
            try $0.query("SELECT grant_id, expires_at FROM revoked_grants").map { (try $0.string(0), try $0.int64(1)) }
        }
        #expect(remembered.map(\.0) == [grantID] && remembered.map(\.1) == [exp], "remembered once, until the token's exp")

        #expect(introspect(revoked).text == #"{"active":false}"#)
        let refused = deleteBob(revoked)
        #expect(refused.status == 401, "\(refused.text)")
        #expect(try SQLiteUserStore(store: harness.store).find(userID: "auth0|bob") != nil)
        // The application's other token is its own grant, still live.
        #expect(introspect(kept).json["active"] as? Bool == true)
        #expect(deleteBob(kept).status == 204)
    }

    @Test func anExpiredTokenIsNotRemembered() throws {
        let expired = try token()
        clock.advance(by: 901)
        #expect(revoke(expired).status == 200)
        #expect(try count("SELECT count(*) FROM revoked_grants") == 0)
        #expect(introspect(expired).text == #"{"active":false}"#)
    }

    @Test func theApplicationsDeletionEndsItsTokens() throws {
        let orphan = try token()
        try SQLiteClientStore(store: harness.store).delete(clientID: "ops")
        let refused = deleteBob(orphan)
        #expect(refused.status == 401, "\(refused.text)")
    }
}
