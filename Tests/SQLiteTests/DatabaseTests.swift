import Foundation
import Testing
import SQLite

struct Boom: Error {}

@Suite struct DatabaseTests {
    /// The daemon's checkpointer copies committed pages into the database file on its own, without
    /// any commit crossing `wal_autocheckpoint` (switched off here to isolate it).
    @Test func backgroundCheckpointsFoldTheLogIntoTheFile() throws {
        let dir = try TempDir()
        let path = dir.file()
        let db = try Database(path: path)
        defer { db.close() }
        try db.withWriter { try $0.execute("PRAGMA wal_autocheckpoint = 0") }
        try db.write { try $0.execute("CREATE TABLE t (x BLOB)") }
        let before = fileSize(path) ?? 0
        for _ in 0..<50 {
            try db.write { try $0.run("INSERT INTO t VALUES (randomblob(4000))") }
        }
        #expect(fileSize(path) == before)  // Everything is still in the WAL.
        try db.startBackgroundCheckpoints(interval: .milliseconds(20))
        let deadline = Date().addingTimeInterval(5)
        while (fileSize(path) ?? 0) < before + 50 * 4000 && Date() < deadline { usleep(20_000) }
        #expect((fileSize(path) ?? 0) >= before + 50 * 4000)
        try db.startBackgroundCheckpoints()  // Idempotent.
    }

    @Test func createsParentDirectory() throws {
        let dir = try TempDir()
        let path = dir.path + "/nested/deeper/db.sqlite3"
        let db = try Database(path: path)
        try db.write { try $0.execute("CREATE TABLE t (x)") }
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func throwingWriteLeavesNothingBehind() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file())
        try db.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        #expect(throws: Boom.self) {
            try db.write { connection in
                try connection.run("INSERT INTO t VALUES (1)")
                try connection.run("INSERT INTO t VALUES (2)")
                throw Boom()
            }
        }
        #expect(try db.count("t") == 0)
        // The writer is usable again: no transaction was left open.
        try db.write { try $0.run("INSERT INTO t VALUES (3)") }
        #expect(try db.count("t") == 1)
    }

    @Test func errorInsideWriteNamesTheSQL() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file())
        let error = #expect(throws: SQLiteError.self) {
            try db.write { try $0.run("INSERT INTO no_such_table (x) VALUES (?)", [1]) }
        }
        #expect(error?.sql == "INSERT INTO no_such_table (x) VALUES (?)")
        #expect(error?.description.contains("INSERT INTO no_such_table") == true)
        #expect(error?.description.contains("no such table") == true)
    }

    @Test func uniqueViolationIsRecognised() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file())
        try db.write { try $0.execute("CREATE TABLE u (id INTEGER PRIMARY KEY, email TEXT UNIQUE)") }
        try db.write { try $0.run("INSERT INTO u VALUES (1, 'a@x')") }
        let unique = #expect(throws: SQLiteError.self) { try db.write { try $0.run("INSERT INTO u VALUES (2, 'a@x')") } }
        #expect(unique?.isUniqueConstraint == true)
        #expect(unique?.isConstraint == true)
        #expect(unique?.extendedCode == SQLiteResult.constraintUnique)
        let primary = #expect(throws: SQLiteError.self) { try db.write { try $0.run("INSERT INTO u VALUES (1, 'b@x')") } }
        #expect(primary?.isUniqueConstraint == true)
        #expect(primary?.extendedCode == SQLiteResult.constraintPrimaryKey)
        #expect(try db.count("u") == 1)
    }

    @Test func nestedWriteThrowsInsteadOfDeadlocking() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file())
        try db.write { try $0.execute("CREATE TABLE t (x)") }
        let error = #expect(throws: SQLiteError.self) {
            try db.write { _ in try db.write { try $0.run("INSERT INTO t VALUES (1)") } }
        }
        #expect(error?.message.contains("nested write") == true)
        try db.write { try $0.run("INSERT INTO t VALUES (2)") }  // the writer was released
        #expect(try db.count("t") == 1)
    }

    @Test func readersAreReadOnly() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file())
        try db.write { try $0.execute("CREATE TABLE t (x)") }
        let error = #expect(throws: SQLiteError.self) { try db.read { try $0.run("INSERT INTO t VALUES (1)") } }
        #expect(error?.isReadOnly == true)
    }

    @Test func closeIsIdempotentAndLaterUseThrows() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file())
        db.close()
        db.close()
        #expect(throws: SQLiteError.self) { try db.write { _ in } }
        #expect(throws: SQLiteError.self) { try db.read { _ in } }
    }

    @Test func integrityCheckSaysOK() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file())
        try db.write { try $0.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1);") }
        #expect(try db.integrityCheck() == ["ok"])
    }

    /// K06: an open read transaction does not block writes, keeps its snapshot, and once it ends
    /// a TRUNCATE checkpoint empties the -wal file.
    @Test func longReadDoesNotBlockWritesAndCheckpointTruncates() throws {
        let dir = try TempDir()
        let path = dir.file()
        let db = try Database(path: path)
        try db.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let counts = Collector<Int64>()
        let errors = Collector<String>()
        let reader = Thread {
            do {
                try db.read { connection in
                    counts.append(try connection.queryOne("SELECT count(*) FROM t")!.int64(0))
                    started.signal()
                    release.wait()
                    counts.append(try connection.queryOne("SELECT count(*) FROM t")!.int64(0))
                }
            } catch {
                errors.append("\(error)")
                started.signal()
            }
            counts.append(-1)  // marks "reader finished"
        }
        reader.start()
        started.wait()
        for index in 0..<200 {
            try db.write { try $0.run("INSERT INTO t VALUES (?)", [.integer(Int64(index))]) }
        }
        #expect(try db.count("t") == 200)  // other readers see the new rows meanwhile
        #expect((fileSize(path + "-wal") ?? 0) > 0)
        release.signal()
        while !counts.all.contains(-1) { usleep(1000) }
        #expect(errors.all.isEmpty)
        #expect(counts.all == [0, 0, -1])  // the long read kept its snapshot
        try db.checkpoint(truncate: true)
        #expect(fileSize(path + "-wal") == 0)
        #expect(try db.count("t") == 200)
    }
}
