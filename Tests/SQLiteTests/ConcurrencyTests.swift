import Foundation
import Testing
import SQLite

@Suite struct ConcurrencyTests {
    /// K04: 8 threads × 500 writes lose nothing and never see SQLITE_BUSY; readers run alongside.
    @Test func eightThreadsWriteConcurrently() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file(), readers: 4)
        try db.write { try $0.execute("CREATE TABLE t (thread INTEGER, n INTEGER, PRIMARY KEY (thread, n))") }
        let errors = Collector<String>()
        onThreads(10) { thread in
            if thread >= 8 {
                // Two reader threads keep querying while the writers write.
                for _ in 0..<200 {
                    do { _ = try db.count("t") } catch { errors.append("read: \(error)") }
                }
                return
            }
            for n in 0..<500 {
                do {
                    try db.write { try $0.run("INSERT INTO t VALUES (?, ?)", [.integer(Int64(thread)), .integer(Int64(n))]) }
                } catch {
                    errors.append("write: \(error)")
                }
            }
        }
        #expect(errors.all.isEmpty)
        #expect(try db.count("t") == 4000)
        #expect(try db.read { try $0.query("SELECT thread, count(*) AS c FROM t GROUP BY thread").map { try $0.int("c") } } == Array(repeating: 500, count: 8))
    }

    /// Another process (the sqlite3 CLI) writes the same file while 8 of our threads write:
    /// busy_timeout and BEGIN IMMEDIATE absorb the contention, so no SQLITE_BUSY reaches us.
    @Test(.enabled(if: cliAvailable)) func anotherProcessWritesTheSameFile() throws {
        let dir = try TempDir()
        let path = dir.file()
        let db = try Database(path: path)
        try db.write { try $0.execute("CREATE TABLE t (source TEXT NOT NULL, n INTEGER NOT NULL)") }
        let script = dir.file("cli.sql")
        var text = ""
        for n in 0..<400 {
            text += "INSERT INTO t VALUES ('cli', \(n));\n"
            if n % 50 == 0 { text += "BEGIN IMMEDIATE; INSERT INTO t VALUES ('cli-tx', \(n)); SELECT count(*) FROM t; COMMIT;\n" }
        }
        try text.write(toFile: script, atomically: true, encoding: .utf8)

        let cli = Process()
        cli.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        cli.arguments = ["-bail", path, ".timeout 10000", ".read \(script)"]
        let pipe = Pipe()
        cli.standardOutput = pipe
        cli.standardError = pipe
        try cli.run()

        let errors = Collector<String>()
        onThreads(8) { thread in
            for n in 0..<150 {
                do {
                    try db.write { try $0.run("INSERT INTO t VALUES ('app', ?)", [.integer(Int64(thread * 1000 + n))]) }
                    if n % 10 == 0 { _ = try db.count("t") }
                } catch {
                    errors.append("\(error)")
                }
            }
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        cli.waitUntilExit()
        #expect(errors.all.isEmpty)
        #expect(cli.terminationStatus == 0, "sqlite3 CLI failed: \(output)")
        #expect(try db.count("t", where: "source = 'app'") == 1200)
        #expect(try db.count("t", where: "source = 'cli'") == 400)
        #expect(try db.count("t", where: "source = 'cli-tx'") == 8)
        #expect(try db.integrityCheck() == ["ok"])
    }

    /// K05 at this layer: a write lock held elsewhere longer than the busy timeout surfaces as
    /// `isBusy` (and the database still works once the lock is gone).
    @Test func busyTimeoutExceededSurfacesAsBusy() throws {
        let dir = try TempDir()
        let path = dir.file()
        let db = try Database(path: path, busyTimeout: .milliseconds(200))
        try db.write { try $0.execute("CREATE TABLE t (x)") }
        let holder = try Connection(path: path)
        try holder.execute("BEGIN IMMEDIATE; INSERT INTO t VALUES ('held');")
        let error = #expect(throws: SQLiteError.self) { try db.write { try $0.run("INSERT INTO t VALUES (1)") } }
        #expect(error?.isBusy == true)
        // Reads are not blocked by the held write lock (WAL).
        #expect(try db.count("t") == 0)
        try holder.execute("COMMIT")
        try db.write { try $0.run("INSERT INTO t VALUES (1)") }
        #expect(try db.count("t") == 2)
    }
}
