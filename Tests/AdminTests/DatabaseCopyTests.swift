import Foundation
import Model
import PostgreSQL
import SQLite
import Storage
import Testing
import TestSupport
@testable import Admin

/// `idp-admin db copy` from an SQLite database seeded through the real stores into a database of
/// the test cluster, then read back through the same stores on PostgreSQL.
@Suite(.enabled(if: !PostgresCluster.isSkipped, "IDP_TEST_SKIP_POSTGRES=1"))
struct DatabaseCopyTests {
    let cluster: PostgresCluster
    let harness: AdminHarness
    let passwordFile: String

    init() throws {
        cluster = try PostgresCluster.shared()
        harness = try AdminHarness("db-copy")
        passwordFile = harness.directory.file("pg-password")
        try Data((cluster.password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
    }

    func copy(to database: String, extra: [String] = []) -> AdminCLI.Result {
        harness.run(["db", "copy", "--to", cluster.url(database: database), "--password-file", passwordFile, "--json"] + extra)
    }

    func report(_ result: AdminCLI.Result) throws -> [String: (source: Int, skipped: Int, copied: Int)] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(object["verified"] as? Bool == true)
        var tables: [String: (Int, Int, Int)] = [:]
        for row in try #require(object["tables"] as? [[String: Any]]) {
            tables[row["table"] as! String] = (row["source"] as! Int, row["skipped"] as! Int, row["copied"] as! Int)
        }
        return tables
    }

    func withTarget<T>(_ database: String, _ body: (PostgresStore) throws -> T) throws -> T {
        let store = try PostgresStore(try cluster.configuration(database: database))
        defer { store.close() }
        return try body(store)
    }

    @Test func copiesEverythingLiveAndLeavesTheExpiredBehind() throws {
        let app = try harness.createApp("native", callbacks: "com.example.app://cb")
        let userID = try harness.createUser("alice@example.com")
        #expect(harness.run(["keys", "rotate"]).status == 0)
        let live = try harness.seedHoldings(userID: userID, clientID: app.id)
        let old = Date(timeIntervalSinceNow: -7200)
        try harness.withStore { store in
            let sessions = SQLiteSessionStore(store: store)
            // Expired and named by nobody: left behind. Expired but named by a grant: kept with it.
            for (id, cookie) in [("sid-lone", "cookie-lone"), ("sid-named", "cookie-named")] {
                try sessions.create(Session(sessionID: id, cookieHash: cookie, userID: userID, authTime: old, createdAt: old,
                                            lastSeenAt: old, expiresAt: old.addingTimeInterval(60)))
            }
            try SQLiteGrantStore(store: store).create(Grant(grantID: "grant-named", clientID: app.id, userID: userID, sessionID: "sid-named",
                                                            scope: "openid", authTime: old, createdAt: old))
            try SQLiteAuthorizationCodeStore(store: store).insert(AuthorizationCode(
                codeHash: "code-expired", clientID: app.id, userID: userID, sessionID: live.sessionID, redirectURI: "com.example.app://cb",
                scope: "openid", authTime: old, createdAt: old, expiresAt: old.addingTimeInterval(60)))
            try store.database.write { connection in
                // A session transferred from a grant: sessions and grants name each other.
                try connection.run("UPDATE sessions SET parent_grant_id = 'grant-named' WHERE session_id = ?1", [.text(live.sessionID)])
                try connection.run("""
                    INSERT INTO refresh_tokens (token_hash, grant_id, client_id, user_id, scope, issued_at, expires_at, last_used_at, generation)
                    VALUES ('rt-expired', 'grant-named', ?1, ?2, 'openid', 1, 2, 1, 0)
                    """, [.text(app.id), .text(userID)])
            }
        }
        let database = try cluster.makeDatabase()
        let result = copy(to: database)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardOutput.contains(cluster.password) && !result.standardError.contains(cluster.password))
        let tables = try report(result)
        #expect(tables["sessions"].map { [$0.source, $0.skipped, $0.copied] } == [3, 1, 2])
        #expect(tables["authorization_codes"].map { [$0.source, $0.skipped, $0.copied] } == [2, 1, 1])
        #expect(tables["refresh_tokens"].map { [$0.source, $0.skipped, $0.copied] } == [2, 1, 1])
        #expect(tables["signing_keys"]?.copied == 4)  // two created at db init's first use, two by the rotation
        #expect(tables["schema_migrations"] == nil)

        let (sqliteClient, sqliteKeys, sqliteUser) = try harness.withStore { store in
            (try SQLiteClientStore(store: store).find(clientID: app.id), try SigningKeyStore(store: store).all(),
             try SQLiteUserStore(store: store).find(userID: userID))
        }
        try withTarget(database) { target in
            #expect(try SQLiteClientStore(store: target).find(clientID: app.id) == sqliteClient)
            #expect(try SQLiteUserStore(store: target).find(email: "alice@example.com") == sqliteUser)
            let keys = try SigningKeyStore(store: target).all()
            #expect(keys.map(\.kid).sorted() == sqliteKeys.map(\.kid).sorted())
            #expect(keys == sqliteKeys)
            let session = try #require(try SQLiteSessionStore(store: target).find(sessionID: live.sessionID))
            #expect(session.userID == userID)
            let (parent, family) = try target.database.read { connection in
                (try connection.queryOne("SELECT parent_grant_id FROM sessions WHERE session_id = ?1", [.text(live.sessionID)])?
                    .string("parent_grant_id"),
                 try connection.queryOne("SELECT grant_id FROM refresh_tokens WHERE token_hash = ?1", [.text(live.refreshHash)])?
                    .string("grant_id"))
            }
            #expect(parent == "grant-named")
            #expect(family == live.grantID)
            // The audit sequence continues after the copied ids.
            let copiedTop = try target.database.read { try $0.queryOne("SELECT max(id) AS top FROM audit_events")?.int("top") ?? 0 }
            let next = try target.database.write {
                try $0.queryOne("INSERT INTO audit_events (time, event) VALUES (1, 'test') RETURNING id")?.int("id") ?? 0
            }
            #expect(next > copiedTop)
        }
    }

    @Test func refusesATargetThatHoldsRowsAndCopiesIntoAnEmptySchemaAgain() throws {
        _ = try harness.createApp()
        let database = try cluster.makeDatabase()
        // A schema with empty tables (what a failed copy leaves) is accepted.
        try withTarget(database) { _ in }
        let first = copy(to: database)
        #expect(first.status == 0, "\(first.standardError)")
        let second = copy(to: database)
        #expect(second.status == 1)
        #expect(second.standardError.contains("already holds rows (in ") && second.standardError.contains("clients"), "\(second.standardError)")
    }

    @Test func refusesATargetWithSomeoneElsesTables() throws {
        let database = try cluster.makeDatabase()
        let connection = try PostgresConnection(try cluster.configuration(database: database))
        try connection.execute("CREATE TABLE invoices (id BIGINT PRIMARY KEY)")
        connection.close()
        let result = copy(to: database)
        #expect(result.status == 1)
        #expect(result.standardError.contains("not a Gatehouse schema (invoices)"), "\(result.standardError)")
    }

    @Test func refusesAnSQLiteSchemaOlderThanTheBinary() throws {
        let directory = try TemporaryDirectory("db-copy-old")
        let path = directory.file("old.sqlite3")
        try Store(path: path, migrations: Array(EmbeddedMigrations.all.prefix(12))).close()
        let result = AdminCLI.run(["db", "copy", "--to", cluster.url(database: try cluster.makeDatabase()), "--password-file", passwordFile],
                                  environment: ["IDP_DATABASE": path, "USER": "ops"], systemConfigPath: nil)
        #expect(result.status == 1)
        #expect(result.standardError.contains("schema version 12 but this binary's is \(EmbeddedMigrations.all.count)"), "\(result.standardError)")
    }

    @Test func refusesAPasswordInTheURLAndAMissingTarget() {
        let inURL = harness.run(["db", "copy", "--to", "postgresql://gatehouse:secret@127.0.0.1:\(cluster.port)/x"])
        #expect(inURL.status == 1 && inURL.standardError.contains("must not contain a password"), "\(inURL.standardError)")
        #expect(!inURL.standardError.contains("secret@"))
        let missing = harness.run(["db", "copy"])
        #expect(missing.status == 2 && missing.standardError.contains("--to"), "\(missing.standardError)")
    }

    /// The two backends' migrations describe the same tables, and `db copy` has a plan for each:
    /// a table added to one backend only fails here, not in someone's migration.
    @Test func everySQLiteTableHasAPostgresTwinInThePlan() throws {
        let (store, directory) = try makeTestStore()
        defer { store.close(); _ = directory }
        let target = try makeTestPostgresStore()
        defer { target.close() }
        let sqliteShapes = try store.database.read { try DatabaseCopySchemas.sqlite($0) }
        let plan = try target.database.withConnection { postgres in
            try DatabaseCopyPlan.make(sqlite: sqliteShapes, postgres: try DatabaseCopySchemas.postgres(postgres),
                                      foreignKeys: try DatabaseCopySchemas.postgresForeignKeys(postgres))
        }
        #expect(Set(plan.tables.map(\.name)) == Set(sqliteShapes.map(\.name)).subtracting(DatabaseCopyPlan.notCopied))
        #expect(plan.tables.first { $0.name == "sessions" }?.deferredColumns == ["parent_grant_id"])
        // Only the tables marked seeded hold rows right after the PostgreSQL migrations.
        let filled = try target.database.read { connection in
            try plan.tables.filter { try connection.queryOne("SELECT 1 AS present FROM \($0.name) LIMIT 1") != nil }.map(\.name)
        }
        #expect(Set(filled) == DatabaseCopyPlan.seeded)
    }
}
