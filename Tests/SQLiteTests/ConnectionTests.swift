import Foundation
import Testing
@testable import SQLite

@Suite struct ConnectionTests {
    /// Statistics off and no initial page-cache block (`processWideSettingsApplied`): SQLite takes
    /// them only before it initialises, which the first connection does.
    @Test func sqliteTookTheProcessWideSettings() throws {
        let dir = try TempDir()
        _ = try Connection(path: dir.file())
        #expect(processWideSettingsApplied)
    }

    @Test func pragmasAreReallySet() throws {
        let dir = try TempDir()
        let connection = try Connection(path: dir.file(), busyTimeout: .milliseconds(1234))
        #expect(try connection.queryOne("PRAGMA journal_mode")?.string(0) == "wal")
        #expect(try connection.queryOne("PRAGMA foreign_keys")?.int(0) == 1)
        #expect(try connection.queryOne("PRAGMA synchronous")?.int(0) == 1)  // NORMAL
        #expect(try connection.queryOne("PRAGMA busy_timeout")?.int(0) == 1234)
    }

    @Test func readersOfTheDatabaseHaveThePragmasToo() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file(), readers: 2, busyTimeout: .seconds(3))
        let pragmas = try db.read { connection in
            try ["journal_mode", "foreign_keys", "synchronous", "busy_timeout"].map {
                try connection.queryOne("PRAGMA \($0)")![0]!
            }
        }
        #expect(pragmas == ["wal", 1, 1, 3000])
        let writerForeignKeys = try db.write { try $0.queryOne("PRAGMA foreign_keys")?.int(0) }
        #expect(writerForeignKeys == 1)
    }

    @Test func foreignKeysAreEnforced() throws {
        let dir = try TempDir()
        let connection = try Connection(path: dir.file())
        try connection.execute("""
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (parent_id INTEGER NOT NULL REFERENCES parent(id));
            """)
        let error = #expect(throws: SQLiteError.self) { try connection.run("INSERT INTO child VALUES (42)") }
        #expect(error?.isConstraint == true)
        #expect(error?.isUniqueConstraint == false)
    }

    @Test func everyValueRoundTrips() throws {
        let dir = try TempDir()
        let connection = try Connection(path: dir.file())
        try connection.execute("CREATE TABLE v (id INTEGER PRIMARY KEY, value ANY) STRICT")
        let values: [SQLValue] = [
            .null,
            .integer(0), .integer(Int64.max), .integer(Int64.min), .integer(-1),
            .real(3.141592653589793), .real(-0.5), .real(Double.greatestFiniteMagnitude), .real(Double.leastNonzeroMagnitude),
            .text(""), .text("plain"), .text("nul\u{0}inside\u{0}"), .text("\u{0}"), .text("ünïcødé 🔐"),
            .blob([]), .blob([0]), .blob([0, 1, 0, 255, 0]), .blob(Array(repeating: 0xAB, count: 100_000)),
        ]
        for value in values {
            try connection.run("INSERT INTO v (value) VALUES (?)", [value])
        }
        let rows = try connection.query("SELECT value, typeof(value) AS type FROM v ORDER BY id")
        #expect(rows.map { $0["value"] } == values.map { $0 })
        // Empty text and blob keep their storage class rather than becoming NULL.
        #expect(try rows[9].string("type") == "text")
        #expect(try rows[14].string("type") == "blob")
        #expect(try rows[11].string("value").utf8.count == "nul\u{0}inside\u{0}".utf8.count)
    }

    @Test func typedGettersAndErrors() throws {
        let dir = try TempDir()
        let connection = try Connection(path: dir.file())
        let row = try #require(try connection.queryOne(
            "SELECT 'a@example.org' AS email, 42 AS n, 1 AS flag, 2.5 AS ratio, x'00ff' AS bytes, NULL AS missing, 9223372036854775807 AS big"))
        #expect(try row.string("email") == "a@example.org")
        #expect(try row.int("n") == 42)
        #expect(try row.int64("big") == Int64.max)
        #expect(try row.bool("flag") == true)
        #expect(try row.double("ratio") == 2.5)
        #expect(try row.double("n") == 42)
        #expect(try row.blob("bytes") == [0, 255])
        #expect(try row.isNull("missing"))
        #expect(try !row.isNull("email"))
        #expect(try row.get("missing", as: String?.self) == nil)
        #expect(try row.get("email", as: String?.self) == "a@example.org")
        #expect(try row.string(0) == "a@example.org")
        #expect(row["nope"] == nil)

        #expect(throws: RowError.noSuchColumn("nope", available: row.columns)) { try row.string("nope") }
        #expect(throws: RowError.typeMismatch(column: "n", expected: "String", found: "INTEGER")) { try row.string("n") }
        #expect(throws: RowError.typeMismatch(column: "missing", expected: "Int64", found: "NULL")) { try row.int64("missing") }
        #expect(throws: RowError.self) { try row.bool("n") }  // 42 is not a boolean
        #expect(throws: RowError.self) { try row.int(99) }
        let description = String(describing: RowError.typeMismatch(column: "n", expected: "String", found: "INTEGER"))
        #expect(description.contains("\"n\"") && description.contains("INTEGER"))
    }

    /// Columns are found by name in narrow rows (searched in order) and wide ones (by the index
    /// the statement built) alike: the first of two equal names wins, a missing name throws, and
    /// names match exactly (no case folding).
    @Test(arguments: [3, 24, 25, 40])
    func columnsAreFoundByNameInRowsOfAnyWidth(width: Int) throws {
        let dir = try TempDir()
        let connection = try Connection(path: dir.file())
        let columns = (0..<(width - 1)).map { "\($0) AS c\($0)" } + ["'second' AS c0"]
        let row = try #require(try connection.queryOne("SELECT " + columns.joined(separator: ", ")))
        #expect(row.columns.count == width)
        #expect(try row.int64("c0") == 0)
        #expect(try row.int64("c\(width - 2)") == Int64(width - 2))
        #expect(row["c0"] == .integer(0))
        #expect(row["C0"] == nil)
        #expect(row["c\(width - 1)"] == nil)
        #expect(throws: RowError.noSuchColumn("C1", available: row.columns)) { try row.int64("C1") }
    }

    @Test func literalsAndOptionalConveniences() {
        let values: [SQLValue] = [nil, 1, 2.5, "x", true, SQLValue(Optional<String>.none), SQLValue(Optional("y")), SQLValue([UInt8]([1]))]
        #expect(values == [.null, .integer(1), .real(2.5), .text("x"), .integer(1), .null, .text("y"), .blob([1])])
    }

    @Test func statementCacheIsReused() throws {
        let dir = try TempDir()
        let connection = try Connection(path: dir.file())
        try connection.execute("CREATE TABLE t (x INTEGER)")
        let before = connection.preparedStatementCount
        for index in 0..<10 {
            try connection.run("INSERT INTO t (x) VALUES (?)", [.integer(Int64(index))])
        }
        #expect(connection.preparedStatementCount == before + 1)
        // Bindings were cleared: a statement run again with the same SQL sees only its new values.
        #expect(try connection.queryOne("SELECT sum(x) AS s FROM t")?.int("s") == 45)
        #expect(try connection.queryOne("SELECT sum(x) AS s FROM t")?.int("s") == 45)
        #expect(connection.preparedStatementCount == before + 2)
        #expect(connection.cachedStatementCount >= 2)
    }

    @Test func runReturnsChangesAndLastInsertRowID() throws {
        let dir = try TempDir()
        let connection = try Connection(path: dir.file())
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, x INTEGER)")
        try connection.run("INSERT INTO t (x) VALUES (1), (2), (3)")
        #expect(connection.lastInsertRowID == 3)
        #expect(try connection.run("UPDATE t SET x = x + 1 WHERE x >= ?", [2]) == 2)
    }

    @Test func oneStatementOnlyInRunAndQuery() throws {
        let dir = try TempDir()
        let connection = try Connection(path: dir.file())
        try connection.execute("CREATE TABLE t (x INTEGER)")
        let error = #expect(throws: SQLiteError.self) { try connection.run("INSERT INTO t VALUES (1); DROP TABLE t") }
        #expect(error?.message.contains("more than one statement") == true)
        #expect(try connection.queryOne("SELECT count(*) FROM t")?.int(0) == 0)
        // Trailing semicolons, whitespace and comments are fine.
        try connection.run("INSERT INTO t VALUES (1); -- done\n ;")
        #expect(throws: SQLiteError.self) { try connection.run("SELECT ?", []) }  // wrong binding count
    }

    @Test func sqlInjectionStringsAreData() throws {  // K12
        let dir = try TempDir()
        let db = try Database(path: dir.file())
        let nasty = ["' OR 1=1--", "x'); DROP TABLE users;--", "\" OR \"\"=\"", "admin'--", "1; SELECT * FROM sqlite_schema", "\\'; --", "%_%"]
        try db.write { try $0.execute("CREATE TABLE users (email TEXT PRIMARY KEY)") }
        try db.write { connection in
            for value in nasty { try connection.run("INSERT INTO users (email) VALUES (?)", [.text(value)]) }
        }
        for value in nasty {
            let found = try db.read { try $0.query("SELECT email FROM users WHERE email = ?", [.text(value)]) }
            #expect(try found.map { try $0.string("email") } == [value])
        }
        #expect(try db.count("users") == Int64(nasty.count))
        #expect(try db.read { try $0.query("SELECT email FROM users WHERE email = ?", ["nobody' OR 1=1--"]) }.isEmpty)
    }

    @Test func closedConnectionThrowsAndCloseIsIdempotent() throws {
        let dir = try TempDir()
        let connection = try Connection(path: dir.file())
        connection.close()
        connection.close()
        #expect(connection.isClosed)
        #expect(throws: SQLiteError.self) { try connection.query("SELECT 1") }
    }
}
