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

/// The SQL backends a storage test runs on: both, unless `IDP_TEST_SKIP_POSTGRES=1`.
public enum TestBackend: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite, postgresql

    public static var available: [TestBackend] { PostgresCluster.isSkipped ? [.sqlite] : [.sqlite, .postgresql] }
    public var description: String { rawValue }
}

/// A migrated store of `backend`: an SQLite file in the returned directory, or a fresh database
/// of the shared test cluster (the directory is then only kept for files a test writes).
public func makeTestStorage(_ backend: TestBackend) throws -> (any GatehouseStorage, TemporaryDirectory) {
    switch backend {
    case .sqlite:
        return try makeTestStore()
    case .postgresql:
        return (try makeTestPostgresStore(), try TemporaryDirectory("gatehouse-store"))
    }
}
