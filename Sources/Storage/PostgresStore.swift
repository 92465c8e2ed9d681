import Model
import PostgreSQL

/// Gatehouse's storage on PostgreSQL (`database = postgresql://…`): the pool, migrated at open
/// under an advisory lock so nodes started together migrate once. Record stores build on `records`.
public final class PostgresStore: SQLStorage {
    public let database: PostgresDatabase
    let clientCache = ClientCache()
    let writeProbe = WriteProbe()

    public var records: RecordDatabase { RecordDatabase(sql: database, clientCache: clientCache) }

    /// Connects and applies pending migrations; the error names the URL (never the password).
    public init(_ configuration: PostgresConfiguration,
                migrations: [Migration] = EmbeddedMigrations.postgresql) throws(PostgresStoreOpenError) {
        do {
            database = try PostgresDatabase(configuration)
        } catch {
            throw .cannotConnect(url: configuration.url, error)
        }
        do {
            try PostgresMigrator(migrations, database: database).migrate()
        } catch {
            database.close()
            throw .migration(url: configuration.url, String(describing: error))
        }
    }

    /// A `SELECT 1`, for /readyz.
    public func ping() throws(StorageError) {
        try mapStorageErrors { _ = try database.withReader { try $0.queryOne("SELECT 1") } }
    }

    public func close() { database.close() }
}

/// Why the PostgreSQL store could not start, for the operator.
public enum PostgresStoreOpenError: Error, Sendable, CustomStringConvertible {
    case cannotConnect(url: String, PostgresError)
    case migration(url: String, String)

    public var description: String {
        switch self {
        case .cannotConnect(let url, let error): "database \(url): \(error.message)"
        case .migration(let url, let reason): "database \(url): \(reason)"
        }
    }
}
