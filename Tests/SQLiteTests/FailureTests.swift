import Foundation
import Testing
import SQLite

let chattrAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr") && getuid() == 0 && cliAvailable

@Suite struct FailureTests {
    /// K07: a full disk (simulated with max_page_count) gives `isFull`, the process lives on,
    /// writes work again once there is room, and the file is intact.
    @Test func diskFullIsReportedAndRecoverable() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file())
        try db.write { try $0.execute("CREATE TABLE t (payload BLOB)") }
        let pages = try db.read { try $0.queryOne("PRAGMA page_count")!.int(0) }
        try db.withWriter { try $0.execute("PRAGMA max_page_count = \(pages + 8)") }
        var fullError: SQLiteError?
        var written = 0
        for _ in 0..<100 {
            do {
                try db.write { try $0.run("INSERT INTO t VALUES (?)", [.blob(Array(repeating: 7, count: 3000))]) }
                written += 1
            } catch let error as SQLiteError {
                fullError = error
                break
            }
        }
        #expect(fullError?.isFull == true, "expected SQLITE_FULL, got \(String(describing: fullError))")
        #expect(written > 0)
        #expect(try db.count("t") == Int64(written))  // the failed transaction left nothing
        try db.withWriter { try $0.execute("PRAGMA max_page_count = 1073741823") }
        try db.write { try $0.run("INSERT INTO t VALUES (?)", [.blob([1, 2, 3])]) }
        #expect(try db.count("t") == Int64(written + 1))
        #expect(try db.integrityCheck() == ["ok"])
    }

    /// K08: a directory that cannot hold the -wal file makes opening fail loudly instead of
    /// silently running without WAL. Running as root ignores permission bits, so the directory
    /// is made immutable with `chattr +i`.
    @Test(.enabled(if: chattrAvailable)) func walCannotBeCreatedFailsAtOpen() throws {
        let dir = try TempDir()
        let sub = dir.path + "/immutable"
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        let path = sub + "/db.sqlite3"
        // A database in rollback-journal mode, as an older tool might leave it.
        let created = try sqlite3CLI(path, ["CREATE TABLE t (x); INSERT INTO t VALUES (1);"])
        #expect(created.status == 0)
        let lock = try sqlite3CLIChattr("+i", sub)
        guard lock == 0 else {
            Issue.record("chattr +i failed (filesystem without attribute support?)")
            return
        }
        defer { _ = try? sqlite3CLIChattr("-i", sub) }
        let error = #expect(throws: SQLiteError.self) { try Connection(path: path) }
        #expect(error?.description.contains(path) == true)
        #expect(throws: SQLiteError.self) { try Database(path: path) }
        #expect(error?.isCantOpen == true)
        // A new database in that directory cannot even be created.
        let fresh = #expect(throws: SQLiteError.self) { try Database(path: sub + "/new.sqlite3") }
        #expect(fresh?.isCantOpen == true)
    }

    /// K08, the app's own case: a WAL database closed cleanly (so its -wal file is gone) whose
    /// directory then became unwritable cannot be reopened, and says so.
    @Test(.enabled(if: chattrAvailable)) func walDatabaseInUnwritableDirectoryFailsAtOpen() throws {
        let dir = try TempDir()
        let sub = dir.path + "/immutable"
        let path = sub + "/db.sqlite3"
        do {
            let db = try Database(path: path)
            try db.write { try $0.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1);") }
            db.close()
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        guard try sqlite3CLIChattr("+i", sub) == 0 else {
            Issue.record("chattr +i failed (filesystem without attribute support?)")
            return
        }
        defer { _ = try? sqlite3CLIChattr("-i", sub) }
        let error = #expect(throws: SQLiteError.self) { try Database(path: path) }
        #expect(error?.isCantOpen == true)
        #expect(error?.description.contains(path) == true)
    }

    /// K08 (portable part): wherever journal_mode=WAL does not stick, open throws.
    @Test(.enabled(if: cliAvailable)) func nonWALModeIsRefused() throws {
        let inMemory = #expect(throws: SQLiteError.self) { try Connection(path: ":memory:") }
        #expect(inMemory?.message.contains("WAL") == true)
        let dir = try TempDir()
        let path = dir.file()
        #expect(try sqlite3CLI(path, ["CREATE TABLE t (x);"]).status == 0)
        // Read-only cannot switch a rollback-journal file to WAL.
        let readOnly = #expect(throws: SQLiteError.self) { try Connection(path: path, readOnly: true) }
        #expect(readOnly?.message.contains("WAL") == true)
        let missing = #expect(throws: SQLiteError.self) { try Connection(path: dir.path + "/nope.sqlite3", readOnly: true) }
        #expect(missing?.isCantOpen == true)
    }

    /// K09: an online backup taken while another thread keeps writing opens, passes
    /// integrity_check and holds the rows written before it started.
    @Test func onlineBackupWhileWriting() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file())
        try db.write { try $0.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, payload TEXT)") }
        try db.write { connection in
            for n in 0..<2000 { try connection.run("INSERT INTO t VALUES (?, ?)", [.integer(Int64(n)), .text(String(repeating: "x", count: 100))]) }
        }
        let stop = Collector<Bool>()
        let errors = Collector<String>()
        let writer = Thread {
            var n: Int64 = 10_000
            while stop.all.isEmpty {
                do { try db.write { try $0.run("INSERT INTO t VALUES (?, 'during')", [.integer(n)]) } } catch { errors.append("\(error)") }
                n += 1
            }
            stop.append(true)
        }
        writer.start()
        let backupPath = dir.file("backup.sqlite3")
        for _ in 0..<3 {
            try db.backup(to: backupPath)  // repeated: later backups replace earlier ones
        }
        stop.append(true)
        while stop.all.count < 2 { usleep(1000) }
        #expect(errors.all.isEmpty)
        let copy = try Database(path: backupPath)
        #expect(try copy.integrityCheck() == ["ok"])
        #expect(try copy.count("t", where: "n < 2000") == 2000)
        #expect(try copy.count("t") <= db.count("t"))
        #expect(!FileManager.default.fileExists(atPath: backupPath + ".partial-\(ProcessInfo.processInfo.processIdentifier)"))
    }
}

func sqlite3CLIChattr(_ flag: String, _ path: String) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
    process.arguments = [flag, path]
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}
