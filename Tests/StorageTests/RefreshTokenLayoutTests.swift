import Foundation
import Model
import OIDC
import SQLite
import Storage
import Testing
import TestSupport

/// Migration 0005 stores refresh tokens in family order, (grant_id, generation), with a unique
/// digest index: tokens issued before it must keep working, in their families, after it.
@Suite struct RefreshTokenLayoutTests {
    /// A version-4 file with two families (one rotated twice, one fresh), opened by today's store.
    @Test func tokensIssuedBeforeMigration5KeepTheirFamiliesAndRotate() throws {
        let directory = try TemporaryDirectory("gatehouse-layout")
        let path = directory.file("idp.sqlite3")
        let old = try Store(path: path, readers: 1, migrations: Array(EmbeddedMigrations.all.prefix(4)))
        let client = Sample.client()
        let user = Sample.user()
        // The client row as that schema held it (today's store writes columns added later).
        _ = try old.database.write { connection in
            try connection.run(
                """
                INSERT INTO clients (client_id, name, app_type, auth_methods, grant_types, created_at, updated_at)
                VALUES (?, 'Layout', 'native', 'none', 'authorization_code refresh_token', 1800000000, 1800000000)
                """, [.text(client.clientID)])
        }
        _ = try old.database.write { connection in
            try connection.run(
                "INSERT INTO users (user_id, email, email_key, created_at, updated_at) VALUES (?1, ?2, lower(?2), 1800000000, 1800000000)",
                [.text(user.userID), .text(user.email)])
        }
        for grantID in ["grant-a", "grant-b"] {
            try SQLiteGrantStore(store: old).create(Grant(grantID: grantID, clientID: client.clientID, userID: user.userID,
                                                          sessionID: nil, scope: "openid offline_access",
                                                          authTime: Sample.now, createdAt: Sample.now))
        }
        // Version-4 rows, as that schema's store wrote them: a-0 → a-1 → a-2 (live), and b-0 (live).
        let rows: [(hash: String, grant: String, issued: Int64, rotated: Int64?, successor: String?)] = [
            ("hash-a2", "grant-a", 1_800_000_200, nil, nil),
            ("hash-a0", "grant-a", 1_800_000_000, 1_800_000_100, "hash-a1"),
            ("hash-a1", "grant-a", 1_800_000_100, 1_800_000_200, "hash-a2"),
            ("hash-b0", "grant-b", 1_800_000_050, nil, nil),
        ]
        try old.database.write { connection in
            for row in rows {
                _ = try connection.run(
                    """
                    INSERT INTO refresh_tokens (token_hash, grant_id, client_id, user_id, scope, issued_at, expires_at,
                        last_used_at, rotated_at, successor_hash)
                    VALUES (?, ?, ?, ?, 'openid offline_access', ?, 1900000000, ?, ?, ?)
                    """,
                    [.text(row.hash), .text(row.grant), .text(client.clientID), .text(user.userID), .integer(row.issued),
                     .integer(row.rotated ?? row.issued), row.rotated.map(SQLValue.integer) ?? .null,
                     row.successor.map(SQLValue.text) ?? .null])
            }
        }
        old.close()

        let store = try Store(path: path, readers: 1)
        defer { store.close() }
        let generations = try Self.generations(in: store)
        #expect(generations == ["hash-a0@0", "hash-a1@1", "hash-a2@2", "hash-b0@0"])

        let tokens = SQLiteRefreshTokenStore(store: store)
        let live = try #require(try tokens.find(tokenHash: "hash-a2"))
        #expect(live.grantID == "grant-a" && live.isUnused)
        let successor = RefreshToken(tokenHash: "hash-a3", grantID: "grant-a", clientID: client.clientID, userID: user.userID,
                                     scope: live.scope, issuedAt: Sample.now, expiresAt: live.expiresAt)
        guard case .rotated = try tokens.rotate(tokenHash: "hash-a2", successor: successor, judge: RefreshReuseRule(window: 0), at: Sample.now) else {
            Issue.record("the migrated live token did not rotate")
            return
        }
        #expect(try store.database.read { try $0.queryOne("SELECT generation FROM refresh_tokens WHERE token_hash = 'hash-a3'")?.int(0) } == 3)
        // Reuse of a token rotated before the migration is still reuse.
        guard case .reused = try tokens.rotate(tokenHash: "hash-a0", successor: successor, judge: RefreshReuseRule(window: 0), at: Sample.now) else {
            Issue.record("a token rotated before the migration was not treated as reuse")
            return
        }
        withExtendedLifetime(directory) {}
    }

    /// A family's tokens are numbered in issue order, and a digest stays unique across families.
    @Test func generationsCountRotationsAndDigestsStayUnique() throws {
        let stores = try RefreshStores(.sqlite)
        let store = try #require(stores.store)
        try stores.family("grant-1", session: nil)
        try stores.family("grant-2", session: nil)
        try stores.tokens.insert(stores.token("t0", grant: "grant-1"))
        try stores.tokens.insert(stores.token("u0", grant: "grant-2"))
        var current = "t0"
        for next in ["t1", "t2", "t3"] {
            _ = try stores.tokens.rotate(tokenHash: current, successor: stores.token(next, grant: "grant-1"), judge: RefreshReuseRule(window: 0),
                                         at: Sample.now)
            current = next
        }
        let generations = try Self.generations(in: store)
        #expect(generations == ["t0@0", "t1@1", "t2@2", "t3@3", "u0@0"])
        do {
            try stores.tokens.insert(stores.token("t1", grant: "grant-2"))
            Issue.record("a digest taken in another family was stored twice")
        } catch {
            guard case .alreadyExists = error else { Issue.record("expected alreadyExists, got \(error)"); return }
        }
    }

    /// Every stored token as "digest@generation", in family order.
    private static func generations(in store: Store) throws -> [String] {
        try store.database.read { connection in
            try connection.query("SELECT token_hash, generation FROM refresh_tokens ORDER BY grant_id, generation")
                .map { "\(try $0.string("token_hash"))@\(try $0.int("generation"))" }
        }
    }
}
