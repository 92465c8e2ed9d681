/// One database connection as the record stores see it, whichever backend is behind it.
///
/// Statements use SQLite's numbered placeholders (`?1`, `?2`, or bare `?` counted left to right);
/// a PostgreSQL connection rewrites them to `$N` once per statement text (`Placeholders`).
/// Like SQLite's `Connection`, an instance is used by one thread at a time: its owning pool
/// hands it out inside `read`/`write` and takes it back after.
public protocol SQLConnection: AnyObject {
    /// Which backend this is, for the few statements that must differ (`SQLDialect`).
    var dialect: SQLDialect { get }
    /// Runs a script of zero or more statements without bindings (schema changes).
    func execute(_ sql: String) throws
    /// Runs one statement and returns the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ bindings: [SQLValue]) throws -> Int
    /// Runs one statement and returns every row.
    func query(_ sql: String, _ bindings: [SQLValue]) throws -> [Row]
    /// Runs one statement and returns its first row, if any.
    func queryOne(_ sql: String, _ bindings: [SQLValue]) throws -> Row?
}

extension SQLConnection {
    @discardableResult
    public func run(_ sql: String) throws -> Int { try run(sql, []) }
    public func query(_ sql: String) throws -> [Row] { try query(sql, []) }
    public func queryOne(_ sql: String) throws -> Row? { try queryOne(sql, []) }
}
