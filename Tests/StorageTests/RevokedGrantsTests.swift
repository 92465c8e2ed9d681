import Foundation
import Model
import SQLite
import Storage
import Testing
import TestSupport

/// Migration 0020: a revoked user grant is remembered in `revoked_grants` until every access token
/// minted under it has expired, so an opaque access token is checked without its grant's row
/// (`GrantHolderReader.userOfLiveGrant`), on SQLite and PostgreSQL alike.
@Suite("Revoked grants are remembered for their access tokens' lifetime")
struct RevokedGrantsTests {
    static func open(_ backend: TestBackend, migrations: Int? = nil) throws -> (any GatehouseStorage, reopen: () throws -> any GatehouseStorage, keep: Any) {
        switch backend {
        case .sqlite:
            let directory = try TemporaryDirectory("gatehouse-0020")
            let path = directory.file("idp.sqlite3")
            let store = try Store(path: path, readers: 1, migrations: Array(EmbeddedMigrations.all.prefix(migrations ?? .max)))
            return (store, { try Store(path: path, readers: 1) }, directory)
        case .postgresql:
            let cluster = try PostgresCluster.shared()
            let configuration = try cluster.configuration(database: try cluster.makeDatabase(), maxConnections: 4)
            let store = try PostgresStore(configuration, migrations: Array(EmbeddedMigrations.postgresql.prefix(migrations ?? .max)))
            return (store, { try PostgresStore(configuration) }, cluster)
        }
    }

    /// `revoked_grants` as grant id → expiry.
    static func remembered(_ store: any GatehouseStorage) throws -> [String: Int64] {
        let rows = try store.records.sql.read { connection in try connection.query("SELECT grant_id, expires_at FROM revoked_grants") }
        return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.string("grant_id"), try $0.int64("expires_at")) })
    }

    static func longest(_ store: any GatehouseStorage, _ clientID: String) throws -> Int64? {
        try store.records.sql.read { connection in
            try connection.queryOne("SELECT longest_access_token_lifetime FROM clients WHERE client_id = ?", [.text(clientID)])?.int64(0)
        }
    }

    @Test(arguments: TestBackend.available)
    func aRevokedUserGrantIsRememberedUntilItsLastAccessTokenExpires(_ backend: TestBackend) throws {
        let (store, _, keep) = try Self.open(backend)
        defer { store.close(); _ = keep }
        let client = Sample.client()
        let user = Sample.user()
        try SQLiteClientStore(store: store).create(client)
        try SQLiteUserStore(store: store).create(user)
        let grants = SQLiteGrantStore(store: store)
        for grant in [Sample.grant("g-user", client: client, user: user), Sample.grant("g-live", client: client, user: user),
                      Sample.grant("g-machine", client: client, user: nil)] {
            try grants.create(grant)
        }
        let revokedAt = Sample.now + 100
        try grants.revoke(grantID: "g-user", at: revokedAt, reason: "logout")
        try grants.revoke(grantID: "g-machine", at: revokedAt, reason: "admin")
        try grants.revoke(grantID: "g-user", at: revokedAt + 500, reason: "again")
        let expected = Int64(revokedAt.timeIntervalSince1970) + Int64(client.accessTokenLifetime)
        #expect(try Self.remembered(store) == ["g-user": expected], "machine grants are left out; a second revocation changes nothing")

        let reader = SQLiteGrantHolderReader(store: store)
        let revoked = try reader.userOfLiveGrant(grantID: "g-user", clientID: client.clientID, userID: user.userID)
        #expect(!revoked.grantLive && revoked.user == nil)
        let live = try reader.userOfLiveGrant(grantID: "g-live", clientID: client.clientID, userID: user.userID)
        #expect(live.grantLive && live.user?.userID == user.userID)
        let noApplication = try reader.userOfLiveGrant(grantID: "g-live", clientID: "deleted-app", userID: user.userID)
        #expect(!noApplication.grantLive, "an application that is gone ends its grants")
        let noUser = try reader.userOfLiveGrant(grantID: "g-live", clientID: client.clientID, userID: "auth0|gone")
        #expect(noUser.grantLive && noUser.user == nil)
    }

    /// Tokens minted before an application's lifetime was lowered keep the longer one, so a
    /// revocation after the change is remembered for the longest lifetime the application has had.
    @Test(arguments: TestBackend.available)
    func aRevocationOutlivesEveryLifetimeTheApplicationHasHad(_ backend: TestBackend) throws {
        let (store, _, keep) = try Self.open(backend)
        defer { store.close(); _ = keep }
        let clients = SQLiteClientStore(store: store)
        var client = Sample.client()
        client.accessTokenLifetime = 7_200
        let user = Sample.user()
        try clients.create(client)
        try SQLiteUserStore(store: store).create(user)
        #expect(try Self.longest(store, client.clientID) == 7_200, "an application starts at its own lifetime")
        let grants = SQLiteGrantStore(store: store)
        for id in ["g-1", "g-2"] { try grants.create(Sample.grant(id, client: client, user: user)) }

        client.accessTokenLifetime = 60
        try clients.update(client)
        #expect(try Self.longest(store, client.clientID) == 7_200)
        try grants.revoke(grantID: "g-1", at: Sample.now, reason: "logout")
        client.accessTokenLifetime = 86_400
        try clients.update(client)
        #expect(try Self.longest(store, client.clientID) == 86_400)
        try grants.revoke(grantID: "g-2", at: Sample.now, reason: "logout")
        let now = Int64(Sample.now.timeIntervalSince1970)
        #expect(try Self.remembered(store) == ["g-1": now + 7_200, "g-2": now + 86_400])
    }

    /// A database of the previous release: its revoked user grants are remembered from the start,
    /// each application's longest lifetime is its current one.
    @Test(arguments: TestBackend.available)
    func theMigrationRemembersGrantsRevokedBefore(_ backend: TestBackend) throws {
        let (old, reopen, keep) = try Self.open(backend, migrations: 19)
        defer { _ = keep }
        var client = Sample.client()
        client.accessTokenLifetime = 3_600
        let user = Sample.user()
        try SQLiteClientStore(store: old).create(client)
        try SQLiteUserStore(store: old).create(user)
        try old.records.sql.write { connection in
            for (grant, userID, revoked) in [("g-revoked", user.userID as String?, 1_800_000_300 as Int64?), ("g-live", user.userID, nil),
                                             ("g-machine", nil, 1_800_000_300)] {
                _ = try connection.run(
                    "INSERT INTO grants (grant_id, client_id, user_id, scope, created_at, revoked_at) VALUES (?, ?, ?, 'openid', 1800000000, ?)",
                    [.text(grant), .text(client.clientID), userID.map(SQLValue.text) ?? .null, revoked.map(SQLValue.integer) ?? .null])
            }
        }
        old.close()
        let store = try reopen()
        defer { store.close() }
        #expect(try Self.remembered(store) == ["g-revoked": 1_800_003_900])
        #expect(try Self.longest(store, client.clientID) == 3_600)
    }
}
