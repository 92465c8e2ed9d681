import Foundation
import Testing
import SQLite

@Suite struct VacuumAndWriteHealthTests {
    /// New files take incremental auto-vacuum (it must be chosen before WAL writes the header);
    /// an existing file keeps its mode.
    @Test(.enabled(if: cliAvailable)) func newFilesGetIncrementalAutoVacuumAndOldOnesKeepTheirMode() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file())
        try db.write { try $0.execute("CREATE TABLE t (x)") }
        #expect(try db.pageStats().autoVacuum == .incremental)
        db.close()
        let reopened = try Database(path: dir.file())
        #expect(try reopened.pageStats().autoVacuum == .incremental)
        reopened.close()

        let legacy = dir.file("legacy.sqlite3")
        #expect(try sqlite3CLI(legacy, ["PRAGMA journal_mode = WAL; CREATE TABLE t (x);"]).status == 0)
        let old = try Database(path: legacy)
        #expect(try old.pageStats().autoVacuum == Database.AutoVacuum.none)
        try old.vacuum()
        #expect(try old.pageStats().autoVacuum == .incremental)
    }

    @Test func incrementalVacuumReleasesFreePagesInSteps() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file())
        try db.write { connection in
            try connection.execute("CREATE TABLE t (payload BLOB)")
            for _ in 0..<400 { try connection.run("INSERT INTO t VALUES (?)", [.blob(Array(repeating: 1, count: 3000))]) }
        }
        try db.write { try $0.run("DELETE FROM t") }
        let free = try db.pageStats().freePages
        #expect(free >= 390)
        let first = try db.incrementalVacuum(pages: 100)
        #expect(first.released == 100)
        #expect(try db.pageStats().freePages == free - 100)
        while try db.pageStats().freePages > 0 { _ = try db.incrementalVacuum(pages: 100) }
        try db.checkpoint()
        #expect(db.fileSizes().database < 100 * 4096)
        #expect(try db.integrityCheck() == ["ok"])
    }

    /// Storage failures are remembered until a write succeeds; statement errors are not failures.
    @Test func writeHealthRemembersStorageFailuresOnly() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file())
        try db.write { try $0.execute("CREATE TABLE t (x UNIQUE, payload BLOB)") }
        #expect(db.writeHealth.snapshot.lastSuccess != nil && !db.writeHealth.snapshot.isFailing)
        try db.write { try $0.run("INSERT INTO t VALUES (1, NULL)") }
        #expect(throws: SQLiteError.self) { try db.write { try $0.run("INSERT INTO t VALUES (1, NULL)") } }
        #expect(!db.writeHealth.snapshot.isFailing)

        let pages = try db.read { try $0.queryOne("PRAGMA page_count")!.int(0) }
        try db.withWriter { try $0.execute("PRAGMA max_page_count = \(pages + 1)") }
        let full = #expect(throws: SQLiteError.self) {
            for index in 2..<100 { try db.write { try $0.run("INSERT INTO t VALUES (?, ?)", [.integer(Int64(index)), .blob(Array(repeating: 0, count: 3000))]) } }
        }
        #expect(full?.isFull == true)
        let snapshot = db.writeHealth.snapshot
        #expect(snapshot.isFailing && snapshot.lastFailure?.error.isFull == true)
        try db.withWriter { try $0.execute("PRAGMA max_page_count = 1073741823") }
        try db.write { try $0.run("INSERT INTO t VALUES (1000, NULL)") }
        #expect(!db.writeHealth.snapshot.isFailing)
    }

    @Test func timedWriteReportsTheHoldTime() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file())
        let (value, held) = try db.timedWrite { connection -> Int in
            try connection.execute("CREATE TABLE t (x)")
            Thread.sleep(forTimeInterval: 0.02)
            return 7
        }
        #expect(value == 7)
        #expect(held >= .milliseconds(20) && held < .seconds(2))
    }
}
