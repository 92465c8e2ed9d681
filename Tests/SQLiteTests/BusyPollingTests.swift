import Foundation
import SQLite
import Testing

/// The daemon's writer polls a lock another connection holds (`Connection.pollForTheWriteLock`):
/// it gets the lock once released, and still gives up after its busy timeout.
@Suite struct BusyPollingTests {
    func database(_ directory: TempDir, timeout: Duration) throws -> Database {
        let database = try Database(path: directory.file(), readers: 1, busyTimeout: timeout)
        try database.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        try database.startBackgroundCheckpoints()
        return database
    }

    /// Runs one write on its own thread; returns a wait for its outcome.
    func writeInBackground(_ database: Database) -> () -> (any Error)? {
        let done = DispatchSemaphore(value: 0)
        let outcome = Collector<any Error>()
        Thread {
            do { try database.write { _ = try $0.run("INSERT INTO t VALUES (2)") } } catch { outcome.append(error) }
            done.signal()
        }.start()
        return { done.wait(); return outcome.all.first }
    }

    @Test func aWriterGetsTheLockOnceAnotherConnectionReleasesIt() throws {
        let directory = try TempDir()
        let database = try database(directory, timeout: .seconds(10))
        defer { database.close() }
        let other = try Connection(path: directory.file())
        try other.execute("BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
        let outcome = writeInBackground(database)
        Thread.sleep(forTimeInterval: 0.3)
        try other.execute("COMMIT")
        #expect(outcome() == nil)
        #expect(try database.read { try $0.queryOne("SELECT count(*) FROM t")?.int(0) } == 2)
        other.close()
    }

    @Test func aWriterStillGivesUpAfterItsBusyTimeout() throws {
        let directory = try TempDir()
        let database = try database(directory, timeout: .milliseconds(200))
        defer { database.close() }
        let other = try Connection(path: directory.file())
        try other.execute("BEGIN IMMEDIATE")
        let error = writeInBackground(database)()
        try other.execute("ROLLBACK")
        other.close()
        #expect((error as? SQLiteError)?.isBusy == true, "\(String(describing: error))")
    }
}
