import Foundation
import SQLite
import Storage
import Testing
import TestSupport

/// Catalogue rows of SQLite data safety under the daemon's own checkpoint regime.
@Suite("Negative catalogue: storage")
struct NegativeCatalogueStorageTests {
    /// K06: a read held open lets the WAL grow (its snapshot pins the frames); once released, the
    /// background checkpoints (PASSIVE, every 100 ms) fold the WAL back so the next writes start it
    /// over: the same amount of writing again leaves the file no larger.
    @Test func theWALIsReusedOnceALongReadEnds() throws {
        let (store, directory) = try makeTestStore()
        defer { withExtendedLifetime(directory) { store.close() } }
        try store.startBackgroundCheckpoints()
        try store.database.write { try $0.execute("CREATE TABLE k06 (payload BLOB NOT NULL)") }
        func writeBatch() throws {
            for _ in 0..<600 {
                try store.database.write { try $0.run("INSERT INTO k06 VALUES (?)", [.blob(Array(repeating: 6, count: 4000))]) }
            }
        }
        let reader = try Connection(path: store.path, readOnly: true)
        try reader.execute("BEGIN")
        #expect(try reader.queryOne("SELECT count(*) FROM k06")?.int(0) == 0)
        try writeBatch()
        let pinned = store.fileSizes().wal
        #expect(pinned > 2_400_000, "the WAL did not grow behind the held read: \(pinned) bytes")
        try reader.execute("COMMIT")
        reader.close()
        usleep(400_000)   // a few background checkpoint ticks
        try writeBatch()
        let after = store.fileSizes().wal
        #expect(after <= pinned + 64 * 1024, "the WAL grew from \(pinned) to \(after) bytes after the read ended")
        #expect(try store.database.read { try $0.queryOne("SELECT count(*) FROM k06")?.int(0) } == 1200)
        #expect(try store.database.integrityCheck() == ["ok"])
    }
}
