import Foundation
import Testing
import SQLite

/// Readers beyond the first open when traffic first needs them, never more than asked for.
@Suite struct ReaderPoolTests {
    /// Descriptors this process holds open on `path` itself (not its -wal or -shm).
    static func openDescriptors(to path: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { fd in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) == path
        }.count
    }

    @Test func readersOpenOnFirstNeedUpToTheirNumber() throws {
        let dir = try TempDir()
        let path = dir.file()
        let db = try Database(path: path, readers: 3)
        try db.write { try $0.execute("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1)") }
        // The writer and one reader at start.
        #expect(try Self.openDescriptors(to: path) == 2)
        _ = try db.count("t")
        #expect(try Self.openDescriptors(to: path) == 2, "one caller at a time reuses the first reader")

        // Five callers holding a reader at once: three readers open, two callers wait their turn.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let errors = Collector<String>()
        let done = DispatchGroup()
        for _ in 0..<5 {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                do {
                    try db.read { connection in
                        _ = try connection.queryOne("SELECT count(*) FROM t")
                        holding.signal()
                        release.wait()
                    }
                } catch {
                    errors.append("\(error)")
                }
            }
        }
        for _ in 0..<3 { holding.wait() }
        #expect(holding.wait(timeout: .now() + 0.3) == .timedOut, "a fourth reader opened")
        #expect(try Self.openDescriptors(to: path) == 4)
        for _ in 0..<5 { release.signal() }
        for _ in 0..<2 { holding.wait() }
        done.wait()
        #expect(errors.all.isEmpty)
        #expect(try Self.openDescriptors(to: path) == 4)
    }

    @Test func aClosedDatabaseRefusesReadersItHasNotOpenedYet() throws {
        let dir = try TempDir()
        let db = try Database(path: dir.file(), readers: 3)
        db.close()
        #expect(throws: SQLiteError.self) { try db.read { try $0.queryOne("SELECT 1") } }
    }
}
