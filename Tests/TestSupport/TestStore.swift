import PostgreSQL
import SQLite
import Storage

/// A migrated `Store` in its own temporary directory, for tests of code built on storage.
/// Keep the returned directory alive as long as the store: it is deleted on deinit.
public func makeTestStore(migrations: [Migration] = EmbeddedMigrations.all, readers: Int = 2) throws -> (Store, TemporaryDirectory) {
    let directory = try TemporaryDirectory("gatehouse-store")
    let store = try Store(path: directory.file("idp.sqlite3"), readers: readers, migrations: migrations)
    return (store, directory)
}

/// A migrated `PostgresStore` over a fresh database of the shared test cluster (`PostgresCluster`).
public func makeTestPostgresStore(maxConnections: Int = 12) throws -> PostgresStore {
    let cluster = try PostgresCluster.shared()
    return try PostgresStore(try cluster.configuration(database: try cluster.makeDatabase(), maxConnections: maxConnections))
}

/// A second store (another node's pool) over the same PostgreSQL database as `store`.
public func makeSecondPostgresStore(like store: PostgresStore, maxConnections: Int = 12) throws -> PostgresStore {
    var configuration = store.database.configuration
    configuration.maxConnections = maxConnections
    return try PostgresStore(configuration)
}
