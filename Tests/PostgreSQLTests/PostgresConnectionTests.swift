import Foundation
import PostgreSQL
import Testing
import TestSupport

/// The libpq wrapper against a real server (`PostgresCluster`).
@Suite(.enabled(if: !PostgresCluster.isSkipped, "IDP_TEST_SKIP_POSTGRES=1"))
struct PostgresConnectionTests {
    func database(maxConnections: Int = 4, statementTimeout: Duration = .seconds(5)) throws -> PostgresDatabase {
        let cluster = try PostgresCluster.shared()
        let name = try cluster.makeDatabase()
        return try PostgresDatabase(try cluster.configuration(database: name, maxConnections: maxConnections,
                                                              statementTimeout: statementTimeout))
    }

    @Test func valuesRoundTripWithTheirStorageClass() throws {
        let db = try database()
        let row = try db.write { connection in
            try connection.execute("CREATE TABLE v (i BIGINT, r DOUBLE PRECISION, t TEXT, b BYTEA, n TEXT, s SMALLINT)")
            try connection.run("INSERT INTO v VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                               [.integer(-9_007_199_254_740_993), .real(0.5), .text("héllo 'q' ?1"), .blob([0, 1, 0xfe, 0xff]), .null, .integer(7)])
            return try connection.queryOne("SELECT * FROM v")
        }
        #expect(row?.values == [.integer(-9_007_199_254_740_993), .real(0.5), .text("héllo 'q' ?1"), .blob([0, 1, 0xfe, 0xff]), .null, .integer(7)])
        #expect(try row?.string("t") == "héllo 'q' ?1")
        // Aggregates: count is bigint, sum over bigint is numeric; both read as integers. Empty bytea reads as [].
        let aggregate = try db.read { try $0.queryOne("SELECT count(*) AS c, sum(i) AS s, ''::bytea AS e, true AS yes FROM v") }
        #expect(aggregate?.values == [.integer(1), .integer(-9_007_199_254_740_993), .blob([]), .integer(1)])
    }

    @Test func runCountsChangedRows() throws {
        let db = try database()
        let changed = try db.write { connection -> [Int] in
            try connection.execute("CREATE TABLE c (id BIGINT PRIMARY KEY, used BIGINT)")
            return [try connection.run("INSERT INTO c VALUES (1, NULL), (2, NULL), (3, 5)"),
                    try connection.run("UPDATE c SET used = ? WHERE used IS NULL", [.integer(9)]),
                    try connection.run("UPDATE c SET used = ? WHERE used IS NULL", [.integer(9)])]
        }
        #expect(changed == [3, 2, 0])
    }

    @Test func uniqueViolationIsReportedWithItsSQLState() throws {
        let db = try database()
        try db.write { try $0.execute("CREATE TABLE u (id TEXT PRIMARY KEY)") }
        try db.write { try $0.run("INSERT INTO u VALUES (?)", [.text("a")]) }
        #expect {
            try db.write { try $0.run("INSERT INTO u VALUES (?)", [.text("a")]) }
        } throws: { ($0 as? PostgresError)?.isUniqueViolation == true }
        // The failed transaction was rolled back and the connection went back to the pool usable.
        #expect(try db.read { try $0.queryOne("SELECT count(*) FROM u")?.int(0) } == 1)
    }

    @Test func aThrowingBodyRollsBack() throws {
        let db = try database()
        try db.write { try $0.execute("CREATE TABLE r (id BIGINT)") }
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try db.write { connection in
                try connection.run("INSERT INTO r VALUES (1)")
                throw Stop()
            }
        }
        #expect(try db.read { try $0.queryOne("SELECT count(*) FROM r")?.int(0) } == 0)
    }

    @Test func wrongBindingCountIsRefusedBeforeSending() throws {
        let db = try database()
        #expect { try db.read { try $0.query("SELECT ?1, ?2", [.integer(1)]) } } throws: { error in
            "\(error)".contains("expected 2 bindings, got 1")
        }
    }

    @Test func statementTimeoutCancelsALongStatement() throws {
        let db = try database(statementTimeout: .milliseconds(200))
        #expect { try db.read { try $0.query("SELECT pg_sleep(2)") } } throws: { ($0 as? PostgresError)?.isTimeout == true }
    }

    @Test func aWrongPasswordFailsWithoutShowingIt() throws {
        let cluster = try PostgresCluster.shared()
        let configuration = try PostgresConfiguration(url: cluster.url(database: "postgres"), password: "not-the-password-xyzzy")
        #expect { _ = try PostgresDatabase(configuration) } throws: { error in
            let text = "\(error)"
            return (error as? PostgresError)?.isConnectionFailure == true && text.contains("password authentication failed")
                && !text.contains("not-the-password-xyzzy")
        }
    }

    @Test func aURLWithAPasswordIsRefused() {
        #expect(throws: PostgresError.self) {
            try PostgresConfiguration(url: "postgresql://u:secret@127.0.0.1/db", password: nil)
        }
        #expect(throws: PostgresError.self) { try PostgresConfiguration(url: "mysql://u@h/db", password: nil) }
        #expect(PostgresConfiguration.isPostgresURL("postgres://u@h/db"))
        #expect(!PostgresConfiguration.isPostgresURL("/var/lib/gatehouse/idp.sqlite3"))
    }

    @Test func passwordComesFromTheFileBeforeTheEnvironment() throws {
        let directory = try TemporaryDirectory("pg-password")
        let file = directory.file("password")
        try "from-file\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try PostgresConfiguration.password(file: file, environment: ["IDP_DATABASE_PASSWORD": "env"]) == "from-file")
        #expect(try PostgresConfiguration.password(file: nil, environment: ["IDP_DATABASE_PASSWORD": "env"]) == "env")
        #expect(try PostgresConfiguration.password(file: nil, environment: [:]) == nil)
        #expect(throws: PostgresError.self) { try PostgresConfiguration.password(file: directory.file("missing"), environment: [:]) }
    }

    @Test func thePoolIsBoundedAndCallersWaitForAConnection() throws {
        let db = try database(maxConnections: 3)
        let peak = NSLock()
        nonisolated(unsafe) var inUse = 0
        nonisolated(unsafe) var highest = 0
        DispatchQueue.concurrentPerform(iterations: 12) { _ in
            _ = try? db.withConnection { connection in
                peak.withLock { inUse += 1; highest = max(highest, inUse) }
                _ = try connection.query("SELECT pg_sleep(0.05)")
                peak.withLock { inUse -= 1 }
            }
        }
        #expect(highest <= 3)
        #expect(db.openConnections <= 3)
    }

    /// A server restart costs the requests in between (connection failures, retryable), then the pool recovers by itself.
    @Test func thePoolReconnectsAfterTheServerRestarts() throws {
        // A cluster of its own: restarting the shared one would disturb the tests running beside this one.
        let cluster = try PostgresCluster.dedicated()
        defer { cluster.stop() }
        let name = try cluster.makeDatabase()
        let db = try PostgresDatabase(try cluster.configuration(database: name, maxConnections: 2))
        #expect(try db.read { try $0.queryOne("SELECT 1")?.int(0) } == 1)
        try cluster.stopServer()
        #expect { try db.read { try $0.queryOne("SELECT 1") } } throws: { ($0 as? PostgresError)?.isRetryable == true }
        try cluster.startServer()
        #expect(try db.read { try $0.queryOne("SELECT 1")?.int(0) } == 1)
    }
}
