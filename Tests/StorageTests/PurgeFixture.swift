import Foundation
import Model
import SQLite
import Storage
import TestSupport

/// A migrated store with one application and user, and direct inserts of the rows the purge
/// rules judge, with every time given explicitly (Unix seconds around `PurgeFixture.now`).
final class PurgeFixture {
    static let now: Int64 = 1_800_000_000
    static let day: Int64 = 86_400
    let storage: any GatehouseStorage
    let directory: TemporaryDirectory
    /// SQLite's own handle, for the tests of its file maintenance (SQLite fixtures only).
    var store: Store { storage.sqlite! }
    let clientID = "client-1"
    let userID = "auth0|purge"

    /// The application's access-token and idle lifetimes decide when a family dies.
    init(_ backend: TestBackend = .sqlite, accessTokenLifetime: Int = 3600, idleLifetime: Int = 15 * 86_400) throws {
        (storage, directory) = try makeTestStorage(backend)
        let store = storage
        var client = Sample.client(clientID)
        client.accessTokenLifetime = accessTokenLifetime
        client.refreshIdleLifetime = idleLifetime
        try SQLiteClientStore(store: store).create(client)
        try SQLiteUserStore(store: store).create(Sample.user(userID, email: "purge@example.com"))
    }

    deinit { storage.close() }

    /// SQLite's integrity check, or true on PostgreSQL (which has none to run).
    func isIntact() throws -> Bool { try storage.sqlite.map { try $0.database.integrityCheck() == ["ok"] } ?? true }

    func run(_ sql: String, _ values: [SQLValue] = []) throws {
        _ = try storage.records.sql.write { try $0.run(sql, values) }
    }

    func exists(_ table: String, _ column: String, _ key: SQLValue) throws -> Bool {
        try storage.records.sql.read { try $0.queryOne("SELECT count(*) FROM \(table) WHERE \(column) = ?", [key])?.int(0) ?? 0 } > 0
    }

    func count(_ table: String) throws -> Int {
        try storage.records.sql.read { try $0.queryOne("SELECT count(*) FROM \(table)")?.int(0) ?? 0 }
    }

    func purge(at time: Int64 = PurgeFixture.now, _ policy: RetentionPolicy = RetentionPolicy()) throws -> PurgeReport {
        var purger = Purger(store: storage)
        purger.pause = .zero
        return try purger.purge(policy, at: Date(timeIntervalSince1970: TimeInterval(time)))
    }

    // MARK: - Rows

    func transaction(_ id: String, expires: Int64) throws {
        try run("INSERT INTO login_transactions (id_hash, client_id, parameters, csrf_hash, created_at, expires_at) VALUES (?, ?, '{}', 'c', ?, ?)",
                [.text(id), .text(clientID), .integer(expires - 600), .integer(expires)])
    }

    func code(_ hash: String, expires: Int64, used: Int64? = nil, grant: String? = nil, session: String? = nil) throws {
        try run("""
            INSERT INTO authorization_codes (code_hash, client_id, user_id, session_id, redirect_uri, scope, auth_time, created_at,
                expires_at, used_at, grant_id)
            VALUES (?, ?, ?, ?, 'com.example.app://cb', 'openid', ?, ?, ?, ?, ?)
            """, [.text(hash), .text(clientID), .text(userID), session.map(SQLValue.text) ?? .null, .integer(expires - 60),
                  .integer(expires - 60), .integer(expires), used.map(SQLValue.integer) ?? .null, grant.map(SQLValue.text) ?? .null])
    }

    func session(_ id: String, expires: Int64, ended: Int64? = nil) throws {
        try run("""
            INSERT INTO sessions (session_id, cookie_hash, user_id, auth_time, created_at, last_seen_at, expires_at, ended_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(id), .text("cookie-" + id), .text(userID), .integer(expires - 7 * Self.day), .integer(expires - 7 * Self.day),
                  .integer(expires - 7 * Self.day), .integer(expires), ended.map(SQLValue.integer) ?? .null])
    }

    func grant(_ id: String, created: Int64, revoked: Int64? = nil, machine: Bool = false, session: String? = nil,
               audience: String? = nil) throws {
        try run("""
            INSERT INTO grants (grant_id, client_id, user_id, session_id, scope, audience, created_at, revoked_at)
            VALUES (?, ?, ?, ?, 'openid offline_access', ?, ?, ?)
            """, [.text(id), .text(clientID), machine ? .null : .text(userID), session.map(SQLValue.text) ?? .null,
                  audience.map(SQLValue.text) ?? .null, .integer(created), revoked.map(SQLValue.integer) ?? .null])
    }

    /// A one-row family (migration 0017, in its grant's row since 0019) at `generation`, last rotated at `rotated` (never: nil).
    func oneRowFamily(_ id: String, created: Int64, rotated: Int64?, expires: Int64, generation: Int = 7,
                      grantRevoked: Int64? = nil, olderTokens: Int = 0) throws {
        try grant(id, created: created, revoked: grantRevoked)
        try run("""
            UPDATE grants SET refresh_generation = ?2, refresh_salt = x'01', refresh_issued_at = ?3, refresh_expires_at = ?4,
                refresh_rotated_at = ?5
            WHERE grant_id = ?1
            """, [.text(id), .integer(Int64(generation)), .integer(created), .integer(expires), rotated.map(SQLValue.integer) ?? .null])
        for older in 0..<olderTokens {
            // Tokens of the family from before it was one row: all rotated into it.
            try run("""
                INSERT INTO refresh_tokens (grant_id, generation, token_hash, client_id, user_id, scope, issued_at, expires_at,
                    last_used_at, rotated_at, successor_hash, found_by_hash)
                VALUES (?, ?, ?, ?, ?, 'openid offline_access', ?, ?, ?, ?, ?, 0)
                """, [.text(id), .integer(Int64(older)), .text("\(id)-old\(older)"), .text(clientID), .text(userID),
                      .integer(created), .integer(expires), .integer(created), .integer(created), .text("\(id)-old\(older + 1)")])
        }
    }

    /// A family of `generations` tokens issued `step` seconds apart from `created`, each rotated to the
    /// next; the newest is unused (or revoked at `revoked`). All share the absolute expiry `expires`.
    func family(_ id: String, created: Int64, generations: Int = 3, step: Int64 = 3600, expires: Int64,
                revoked: Int64? = nil, grantRevoked: Int64? = nil, session: String? = nil) throws {
        try grant(id, created: created, revoked: grantRevoked, session: session)
        for generation in 0..<generations {
            let issued = created + Int64(generation) * step
            let newest = generation == generations - 1
            try run("""
                INSERT INTO refresh_tokens (grant_id, generation, token_hash, client_id, user_id, scope, issued_at, expires_at,
                    last_used_at, rotated_at, successor_hash, revoked_at)
                VALUES (?, ?, ?, ?, ?, 'openid offline_access', ?, ?, ?, ?, ?, ?)
                """, [.text(id), .integer(Int64(generation)), .text("\(id)-rt\(generation)"), .text(clientID), .text(userID),
                      .integer(issued), .integer(expires), .integer(newest ? issued : issued + step),
                      newest ? .null : .integer(issued + step), newest ? .null : .text("\(id)-rt\(generation + 1)"),
                      revoked.map(SQLValue.integer) ?? .null])
        }
    }

    func throttle(_ key: String, windowStarted: Int64, lockedUntil: Int64? = nil) throws {
        try run("INSERT INTO login_throttle (key, failures, window_started_at, last_failure_at, locked_until) VALUES (?, 3, ?, ?, ?)",
                [.text(key), .integer(windowStarted), .integer(windowStarted * 1000), lockedUntil.map(SQLValue.integer) ?? .null])
    }

    func audit(_ id: Int64, time: Int64) throws {
        try run("INSERT INTO audit_events (id, time, event, actor, details) VALUES (?, ?, 'test', 'system', '{}')",
                [.integer(id), .integer(time)])
    }

    func revokedAccessToken(_ jti: String, expires: Int64) throws {
        try run("INSERT INTO revoked_access_tokens (jti, expires_at) VALUES (?, ?)", [.text(jti), .integer(expires)])
    }

    func revokedGrant(_ grantID: String, expires: Int64) throws {
        try run("INSERT INTO revoked_grants (grant_id, expires_at) VALUES (?, ?)", [.text(grantID), .integer(expires)])
    }

    func api(_ identifier: String, lifetime: Int) throws {
        try run("INSERT INTO apis (api_id, identifier, name, token_lifetime, created_at, updated_at) VALUES (?, ?, 'API', ?, 0, 0)",
                [.text("api-" + identifier), .text(identifier), .integer(Int64(lifetime))])
    }
}
