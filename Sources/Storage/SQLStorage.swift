import SQL

/// What the record stores are built on: a migrated database of either backend (SQLite's `Store`
/// or `PostgresStore`), so one store implementation serves both wherever the SQL is the same.
public protocol SQLStorage: Sendable {
    var records: RecordDatabase { get }
}

/// The database a record store talks to, and the client cache shared by the stores over it.
public struct RecordDatabase: Sendable {
    /// The pool, for statements of the caller's own (tests, `idp-admin db` tools).
    public let sql: any SQLDatabase
    let clientCache: ClientCache
}

extension Store: SQLStorage {
    public var records: RecordDatabase { RecordDatabase(sql: database, clientCache: clientCache) }
}
