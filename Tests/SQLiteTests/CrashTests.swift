import Foundation
import Testing
import SQLite

/// K01 (cheap form): a separate writer process using Gatehouse's pragmas (WAL, synchronous=NORMAL)
/// is killed with SIGKILL mid-write, 100 times. After each kill the file opens, passes
/// integrity_check, and holds at least every row the writer acknowledged.
///
/// The writer is the sqlite3 CLI, not the idp daemon (which does not exist yet); it shares the
/// SQLite library and the pragmas, which is what decides durability across a process kill.
/// A power cut (K02) cannot be simulated here: the OS page cache survives SIGKILL.
@Suite struct CrashTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/stdbuf") && cliAvailable))
    func killNineDuringWritesLosesNoAcknowledgedRow() throws {
        let dir = try TempDir()
        let path = dir.file()
        do {
            let db = try Database(path: path)
            try db.write { try $0.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)") }
            db.close()
        }
        let script = dir.file("writer.sql")
        var text = ".timeout 5000\nPRAGMA journal_mode = WAL;\nPRAGMA synchronous = NORMAL;\n"
        for _ in 0..<3000 {
            // The SELECT runs after the INSERT committed (autocommit): its output is the acknowledgement.
            text += "INSERT INTO t (payload) VALUES (hex(randomblob(64)));\nSELECT 'ack ' || max(id) FROM t;\n"
        }
        try text.write(toFile: script, atomically: true, encoding: .utf8)

        var killedMidway = 0
        var acknowledgedInTotal: Int64 = 0
        for round in 0..<100 {
            let writer = Process()
            // stdbuf: line-buffered stdout, so acknowledgements are not stuck in stdio when killed.
            writer.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
            writer.arguments = ["-oL", "/usr/bin/sqlite3", path, ".read \(script)"]
            let pipe = Pipe()
            writer.standardOutput = pipe
            writer.standardError = FileHandle.nullDevice
            try writer.run()
            usleep(UInt32(2_000 + (round * 7919) % 25_000))
            kill(writer.processIdentifier, SIGKILL)
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            writer.waitUntilExit()
            if writer.terminationReason == .uncaughtSignal { killedMidway += 1 }
            let acknowledged = output.split(separator: "\n")
                .compactMap { $0.hasPrefix("ack ") ? Int64($0.dropFirst(4)) : nil }
                .max() ?? 0
            acknowledgedInTotal = max(acknowledgedInTotal, acknowledged)

            let connection = try Connection(path: path)
            #expect(try connection.query("PRAGMA integrity_check").map { try $0.string(0) } == ["ok"])
            let maxID = try connection.queryOne("SELECT coalesce(max(id), 0) FROM t")!.int64(0)
            let count = try connection.queryOne("SELECT count(*) FROM t")!.int64(0)
            #expect(maxID >= acknowledged, "round \(round): acknowledged \(acknowledged), found \(maxID)")
            #expect(count == maxID)  // no holes: rows are only ever appended
            connection.close()
        }
        #expect(killedMidway > 50)
        #expect(acknowledgedInTotal > 0)  // the writer did get rows in before being killed
    }
}
