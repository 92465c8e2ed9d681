import Model
import Foundation
import Testing
import SQLite
import Storage
import TestSupport

@Suite struct StoreTests {
    @Test func opensCreatesParentDirectoryMigratesAndPings() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/data/sub/idp.sqlite3"
        let store = try Store(path: path, migrations: [Fixture.one, Fixture.two])
        #expect(FileManager.default.fileExists(atPath: path))
        try store.ping()
        #expect(try store.database.scalar("PRAGMA user_version") == 2)
        #expect(try store.checkpoint())
        store.close()
        store.close()
        #expect(throws: StorageError.self) { try store.ping() }
        // Reopening is a no-op migration.
        let again = try Store(path: path, migrations: [Fixture.one, Fixture.two])
        try again.ping()
    }

    @Test func opensWithTheEmbeddedMigrations() throws {
        let dir = try TemporaryDirectory()
        let store = try Store(path: dir.file("idp.sqlite3"))
        try store.ping()
        #expect(try store.database.scalar("PRAGMA user_version") == .integer(Int64(EmbeddedMigrations.all.count)))
    }

    @Test func changedMigrationMessage() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("idp.sqlite3")
        try Store(path: path, migrations: [Fixture.one]).close()
        let edited = Migration(version: 1, name: "initial", sql: "SELECT 1;", checksum: "other")
        let error = #expect(throws: StoreOpenError.self) { try Store(path: path, migrations: [edited]) }
        #expect(String(describing: error!).hasPrefix("database \(path): migration 0001_initial was changed after it was applied (checksum c1"))
    }

    @Test func newerDatabaseMessage() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("idp.sqlite3")
        try Store(path: path, migrations: [Fixture.one, Fixture.two, Fixture.three]).close()
        let error = #expect(throws: StoreOpenError.self) { try Store(path: path, migrations: [Fixture.one]) }
        #expect(String(describing: error!) == "database \(path): schema version 3 is newer than this binary (knows up to 1)")
    }

    @Test func cannotOpenMessage() throws {
        let dir = try TemporaryDirectory()
        let blocker = dir.file("file")
        _ = FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8))
        let path = blocker + "/idp.sqlite3"  // parent is a regular file
        let error = #expect(throws: StoreOpenError.self) { try Store(path: path, migrations: []) }
        #expect(String(describing: error!).hasPrefix("cannot open \(path):"))
    }
}
