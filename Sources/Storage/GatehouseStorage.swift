import Model
import SQL

/// The configured database, whichever backend it is: what the daemon and `idp-admin` hold
/// (opened by `StorageBackend.open`). Record stores are built on it like on any `SQLStorage`.
public protocol GatehouseStorage: SQLStorage, AnyObject {
    /// Where it is, for messages and logs: the file path, or the URL (which never holds a password).
    var location: String { get }
    var dialect: SQLDialect { get }
    /// A `SELECT 1`, for /readyz.
    func ping() throws(StorageError)
    /// For /readyz: throws `.unavailable` while writes fail (see `Store.checkWrites`).
    func checkWrites(_ timing: WriteCheckTiming) throws(StorageError)
    /// Closes every connection. Idempotent.
    func close()
    /// The SQLite file's own maintenance (WAL checkpoints, file sizes, VACUUM); nil on PostgreSQL,
    /// whose server does its own (checkpoints, autovacuum).
    var sqlite: Store? { get }
}

extension Store: GatehouseStorage {
    public var location: String { path }
    public var dialect: SQLDialect { .sqlite }
    public var sqlite: Store? { self }
}

extension PostgresStore: GatehouseStorage {
    public var location: String { database.configuration.url }
    public var dialect: SQLDialect { .postgresql }
    public var sqlite: Store? { nil }

    /// A one-row probe write at most once per `timing.reuse`: a server that accepts reads but
    /// not writes (a read-only standby after a failover, a full disk) is not ready.
    public func checkWrites(_ timing: WriteCheckTiming = WriteCheckTiming()) throws(StorageError) {
        try writeProbe.probe(database, now: .now, reuse: timing.reuse)
    }
}

extension GatehouseStorage {
    /// `checkWrites` with the daemon's timing.
    public func checkWrites() throws(StorageError) { try checkWrites(WriteCheckTiming()) }
}
