import SQLite
import Storage

/// A migrated `Store` in its own temporary directory, for tests of code built on storage.
/// Keep the returned directory alive as long as the store: it is deleted on deinit.
public func makeTestStore(migrations: [Migration] = EmbeddedMigrations.all, readers: Int = 2) throws -> (Store, TemporaryDirectory) {
    let directory = try TemporaryDirectory("gatehouse-store")
    let store = try Store(path: directory.file("idp.sqlite3"), readers: readers, migrations: migrations)
    return (store, directory)
}
