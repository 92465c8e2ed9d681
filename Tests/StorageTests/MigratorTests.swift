import Foundation
import Testing
import SQLite
import TestSupport

@Suite struct MigratorTests {
    @Test func appliesOnceThenIsANoOp() throws {
        let dir = try TemporaryDirectory()
        let db = try Fixture.database(dir)
        let migrator = Migrator([Fixture.two, Fixture.one], database: db)  // order of the list does not matter
        #expect(try migrator.status().map(\.applied) == [false, false])
        #expect(try migrator.migrate() == [1, 2])
        #expect(try migrator.migrate() == [])
        #expect(try db.scalar("PRAGMA user_version") == 2)
        #expect(try db.scalar("SELECT count(*) FROM schema_migrations") == 2)
        let status = try migrator.status()
        #expect(status.map(\.migration.version) == [1, 2])
        #expect(status.allSatisfy { $0.applied && $0.appliedAt?.hasSuffix("Z") == true })
        #expect(try db.tableNames() == ["clients", "codes", "schema_migrations", "users"])
    }

    @Test func appliesOnlyThePendingOnes() throws {
        let dir = try TemporaryDirectory()
        let db = try Fixture.database(dir)
        #expect(try Migrator([Fixture.one], database: db).migrate() == [1])
        #expect(try Migrator([Fixture.one, Fixture.two, Fixture.three], database: db).migrate() == [2, 3])
        #expect(try db.scalar("PRAGMA user_version") == 3)
    }

    @Test func changedAppliedMigrationIsRefused() throws {
        let dir = try TemporaryDirectory()
        let db = try Fixture.database(dir)
        try Migrator([Fixture.one], database: db).migrate()
        let edited = Migration(version: 1, name: "initial", sql: Fixture.one.sql + "\n-- edited", checksum: "c1-edited")
        let error = #expect(throws: MigrationError.self) { try Migrator([edited, Fixture.two], database: db).migrate() }
        #expect(error == .changedMigration(version: 1, name: "initial", appliedChecksum: "c1", binaryChecksum: "c1-edited"))
        let message = String(describing: error!)
        #expect(message.contains("0001_initial") && message.contains("changed after it was applied"))
        #expect(try db.scalar("PRAGMA user_version") == 1)  // nothing else was applied
    }

    @Test func newerDatabaseIsRefused() throws {
        let dir = try TemporaryDirectory()
        let db = try Fixture.database(dir)
        try Migrator([Fixture.one, Fixture.two, Fixture.three], database: db).migrate()
        let error = #expect(throws: MigrationError.self) { try Migrator([Fixture.one, Fixture.two], database: db).migrate() }
        #expect(error == .databaseNewer(databaseVersion: 3, binaryVersion: 2))
        #expect(String(describing: error!) == "schema version 3 is newer than this binary (knows up to 2)")
        #expect(throws: MigrationError.databaseNewer(databaseVersion: 3, binaryVersion: 0)) {
            try Migrator([], database: db).migrate()
        }
    }

    @Test func newerUserVersionWithoutTableIsRefused() throws {
        let dir = try TemporaryDirectory()
        let db = try Fixture.database(dir)
        try db.write { try $0.execute("PRAGMA user_version = 7") }
        #expect(throws: MigrationError.databaseNewer(databaseVersion: 7, binaryVersion: 3)) {
            try Migrator([Fixture.one, Fixture.two, Fixture.three], database: db).migrate()
        }
    }

    /// K11: a migration failing midway rolls back entirely (tables, its row, user_version);
    /// the fixed migration then applies cleanly.
    @Test func failingMigrationRollsBackAndFixedRerunSucceeds() throws {
        let dir = try TemporaryDirectory()
        let db = try Fixture.database(dir)
        let broken = Migration(version: 2, name: "add_codes", sql: """
            CREATE TABLE codes (code TEXT PRIMARY KEY);
            INSERT INTO clients (id, name) VALUES ('half', 'applied');
            INSERT INTO no_such_table VALUES (1);
            """, checksum: "broken")
        let error = #expect(throws: MigrationError.self) { try Migrator([Fixture.one, broken], database: db).migrate() }
        guard case .failed(let version, let name, let sqliteError) = error else {
            Issue.record("expected .failed, got \(String(describing: error))")
            return
        }
        #expect(version == 2 && name == "add_codes")
        #expect(sqliteError.message.contains("no_such_table"))
        #expect(String(describing: error!).contains("0002_add_codes.sql"))
        // Migration 1 stays applied; nothing of migration 2 remains.
        #expect(try db.scalar("PRAGMA user_version") == 1)
        #expect(try db.scalar("SELECT group_concat(version) FROM schema_migrations") == "1")
        #expect(try !db.tableNames().contains("codes"))
        #expect(try db.scalar("SELECT count(*) FROM clients") == 0)

        #expect(try Migrator([Fixture.one, Fixture.two], database: db).migrate() == [2])
        #expect(try db.scalar("PRAGMA user_version") == 2)
        #expect(try db.tableNames().contains("codes"))
        #expect(try db.integrityCheck() == ["ok"])
    }

    /// K11 with a real kill: a process applying migration 2 the way Migrator does (one
    /// BEGIN IMMEDIATE transaction) is SIGKILLed mid-transaction; nothing of it survives and
    /// our rerun applies migration 2 cleanly.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func migrationKilledMidwayLeavesNothingAndRerunSucceeds() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("db.sqlite3")
        do {
            let db = try Database(path: path, readers: 1)
            try Migrator([Fixture.one], database: db).migrate()
            db.close()
        }
        let script = dir.file("migration.sql")
        try """
            .timeout 5000
            BEGIN IMMEDIATE;
            \(Fixture.two.sql)
            CREATE TABLE bulk (x INTEGER);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000000)
                INSERT INTO bulk SELECT x FROM c;
            INSERT INTO schema_migrations VALUES (2, 'add_codes', 'c2', 'never');
            PRAGMA user_version = 2;
            COMMIT;
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, ".read \(script)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill once the transaction has spilled pages into the WAL, i.e. really is midway.
        var polls = 0
        while process.isRunning && polls < 3000 {
            let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
            if size > 4_000_000 { break }
            usleep(10_000)
            polls += 1
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let db = try Database(path: path, readers: 1)
        #expect(try db.scalar("PRAGMA user_version") == 1)
        #expect(try !db.tableNames().contains("codes"))
        #expect(try !db.tableNames().contains("bulk"))
        #expect(try Migrator([Fixture.one, Fixture.two], database: db).migrate() == [2])
        #expect(try db.scalar("PRAGMA user_version") == 2)
        #expect(try db.integrityCheck() == ["ok"])
    }

    @Test func gapsAndDuplicatesAreRefusedBeforeTouchingTheDatabase() throws {
        let dir = try TemporaryDirectory()
        let db = try Fixture.database(dir)
        #expect(throws: MigrationError.versionGap(missing: 2, before: "0003_add_index.sql")) {
            try Migrator([Fixture.one, Fixture.three], database: db).migrate()
        }
        #expect(throws: MigrationError.versionGap(missing: 1, before: "0002_add_codes.sql")) {
            try Migrator([Fixture.two], database: db).migrate()
        }
        let twin = Migration(version: 1, name: "other", sql: "SELECT 1;", checksum: "x")
        let duplicate = #expect(throws: MigrationError.self) { try Migrator([Fixture.one, twin], database: db).migrate() }
        #expect(String(describing: duplicate!).contains("0001_initial.sql") && String(describing: duplicate!).contains("0001_other.sql"))
        #expect(try db.tableNames() == [])
        #expect(try db.scalar("PRAGMA user_version") == 0)
    }

    /// Two processes starting at once (here: two Database instances on separate threads)
    /// apply each migration exactly once between them.
    @Test func concurrentMigratorsApplyEachMigrationOnce() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("db.sqlite3")
        let applied = Locked<[Int]>([])
        let failures = Locked<[String]>([])
        let group = DispatchGroup()
        for _ in 0..<3 {
            group.enter()
            Thread {
                do {
                    let db = try Database(path: path, readers: 1)
                    let versions = try Migrator([Fixture.one, Fixture.two, Fixture.three], database: db).migrate()
                    applied.update { $0 += versions }
                    db.close()
                } catch {
                    failures.update { $0.append("\(error)") }
                }
                group.leave()
            }.start()
        }
        group.wait()
        #expect(failures.value == [])
        #expect(applied.value.sorted() == [1, 2, 3])
    }

    @Test func migrationFileNames() {
        #expect(Fixture.one.identifier == "0001_initial")
        #expect(Migration(version: 12345, name: "big", sql: "", checksum: "").fileName == "12345_big.sql")
    }
}

/// A tiny lock-protected box for results gathered on several threads.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.lock(); defer { lock.unlock() }; return stored }
    func update(_ body: (inout Value) -> Void) { lock.lock(); defer { lock.unlock() }; body(&stored) }
}
