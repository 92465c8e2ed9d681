import Foundation
import Model
import OIDC
import SQLite
import Storage
import Testing
import TestSupport

/// Migration 0019 moves each one-row refresh-token family (0017) into its grant's row: a database
/// written by the previous release keeps every family at its generation, salt and times, and its
/// tokens go on rotating, on SQLite and PostgreSQL alike.
@Suite("Refresh-token families move into their grants")
struct RefreshFamilyMigrationTests {
    static let salt: [UInt8] = Array(repeating: 7, count: 16)

    /// The rows a version-18 store held: a family rotated 4 times, a fresh one, a revoked one, and a
    /// machine grant without a family.
    static func writeVersion18Rows(_ sql: any SQLDatabase, client: String, user: String) throws {
        try sql.write { connection in
            for (grant, revoked) in [("grant-rotated", nil), ("grant-fresh", nil), ("grant-revoked", 1_800_000_300 as Int64?)] {
                _ = try connection.run(
                    """
                    INSERT INTO grants (grant_id, client_id, user_id, scope, auth_time, created_at, revoked_at)
                    VALUES (?, ?, ?, 'openid offline_access', 1800000000, 1800000000, ?)
                    """, [.text(grant), .text(client), .text(user), revoked.map(SQLValue.integer) ?? .null])
            }
            _ = try connection.run(
                "INSERT INTO grants (grant_id, client_id, scope, created_at) VALUES ('grant-machine', ?, 'read:things', 1800000000)",
                [.text(client)])
            for (grant, generation, rotated) in [("grant-rotated", 4, 1_800_000_400 as Int64?), ("grant-fresh", 0, nil),
                                                  ("grant-revoked", 2, 1_800_000_200 as Int64?)] {
                _ = try connection.run(
                    """
                    INSERT INTO refresh_families (grant_id, generation, salt, issued_at, expires_at, rotated_at)
                    VALUES (?, ?, ?, 1800000000, 1802592000, ?)
                    """, [.text(grant), .integer(Int64(generation)), .blob(Self.salt), rotated.map(SQLValue.integer) ?? .null])
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func familiesKeepTheirGenerationSaltAndTimes(_ backend: TestBackend) throws {
        let directory = try TemporaryDirectory("gatehouse-0019")
        let client = Sample.client()
        let user = Sample.user()
        let reopen: () throws -> any GatehouseStorage
        switch backend {
        case .sqlite:
            let path = directory.file("idp.sqlite3")
            let old = try Store(path: path, readers: 1, migrations: Array(EmbeddedMigrations.all.prefix(18)))
            try SQLiteClientStore(store: old).create(client)
            try SQLiteUserStore(store: old).create(user)
            try Self.writeVersion18Rows(old.records.sql, client: client.clientID, user: user.userID)
            old.close()
            reopen = { try Store(path: path, readers: 1) }
        case .postgresql:
            // A database of its own, migrated to 18 only, then opened by today's store.
            let cluster = try PostgresCluster.shared()
            let older = try cluster.configuration(database: try cluster.makeDatabase(), maxConnections: 4)
            let old = try PostgresStore(older, migrations: Array(EmbeddedMigrations.postgresql.prefix(18)))
            try SQLiteClientStore(store: old).create(client)
            try SQLiteUserStore(store: old).create(user)
            try Self.writeVersion18Rows(old.records.sql, client: client.clientID, user: user.userID)
            old.close()
            reopen = { try PostgresStore(older) }
        }

        let store = try reopen()
        defer { store.close() }
        let sql = store.records.sql
        let rows = try sql.read { connection in
            try connection.query(
                """
                SELECT grant_id, refresh_generation, refresh_salt, refresh_issued_at, refresh_expires_at, refresh_rotated_at
                FROM grants ORDER BY grant_id
                """)
        }
        let moved = try rows.map { row in
            (try row.string("grant_id"), try row.get("refresh_generation", as: Int?.self), try row.get("refresh_salt", as: [UInt8]?.self),
             try row.get("refresh_issued_at", as: Int64?.self), try row.get("refresh_expires_at", as: Int64?.self),
             try row.get("refresh_rotated_at", as: Int64?.self))
        }
        #expect(moved.map(\.0) == ["grant-fresh", "grant-machine", "grant-revoked", "grant-rotated"])
        #expect(moved[0].1 == 0 && moved[0].2 == Self.salt && moved[0].3 == 1_800_000_000 && moved[0].4 == 1_802_592_000 && moved[0].5 == nil)
        #expect(moved[1].1 == nil && moved[1].2 == nil && moved[1].3 == nil && moved[1].4 == nil, "a machine grant has no family")
        #expect(moved[2].1 == 2 && moved[2].5 == 1_800_000_200)
        #expect(moved[3].1 == 4 && moved[3].2 == Self.salt && moved[3].5 == 1_800_000_400)
        let familyTable = try sql.read { connection in
            try connection.queryOne(
                backend == .sqlite ? "SELECT count(*) FROM sqlite_schema WHERE name = 'refresh_families'"
                                   : "SELECT count(*) FROM information_schema.tables WHERE table_name = 'refresh_families'")?.int(0)
        }
        #expect(familyTable == 0)

        // The moved families behave as before: the live generation rotates once, an older one is
        // reuse, a revoked family stays revoked, and a family cannot be started twice.
        let tokens = SQLiteRefreshTokenStore(store: store)
        let time = Date(timeIntervalSince1970: 1_800_000_500)
        func rotate(_ grant: String, _ generation: Int) throws -> RefreshRotation {
            let successor = RefreshToken(tokenHash: RefreshTokenKey.name(grantID: grant, generation: generation + 1), grantID: grant,
                                         clientID: client.clientID, userID: user.userID, scope: "openid offline_access", issuedAt: time,
                                         expiresAt: Date(timeIntervalSince1970: 1_802_592_000), generation: generation + 1,
                                         familySalt: Self.salt)
            return try tokens.rotate(.family(grantID: grant, generation: generation), successor: successor,
                                     judge: RefreshReuseRule(window: 0), at: time)
        }
        guard case .rotated(_, let successor) = try rotate("grant-rotated", 4) else { Issue.record("generation 4 did not rotate"); return }
        #expect(successor.generation == 5 && successor.familySalt == Self.salt && successor.issuedAt == time)
        guard case .reused = try rotate("grant-rotated", 3) else { Issue.record("an older generation was not reuse"); return }
        guard case .revoked = try rotate("grant-revoked", 2) else { Issue.record("a revoked family rotated"); return }
        #expect(throws: StorageError.alreadyExists("refresh-token family of grant grant-fresh")) {
            try tokens.insert(RefreshToken(tokenHash: RefreshTokenKey.name(grantID: "grant-fresh", generation: 0), grantID: "grant-fresh",
                                           clientID: client.clientID, userID: user.userID, scope: "openid", issuedAt: time,
                                           expiresAt: time, generation: 0, familySalt: Self.salt))
        }
        #expect(throws: StorageError.notFound("grant grant-none")) {
            try tokens.insert(RefreshToken(tokenHash: RefreshTokenKey.name(grantID: "grant-none", generation: 0), grantID: "grant-none",
                                           clientID: client.clientID, userID: user.userID, scope: "openid", issuedAt: time,
                                           expiresAt: time, generation: 0, familySalt: Self.salt))
        }
    }
}
