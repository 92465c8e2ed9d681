/// A pool of connections to one database, as the record stores use it.
///
/// `write` runs its body in a transaction that may change data and commits it; `read` in one
/// that sees a single snapshot. A body that throws rolls its transaction back. Neither is
/// reentrant: use the connection passed in. SQLite's `Database` and PostgreSQL's `PostgresDatabase`
/// conform, so one store implementation serves both wherever the SQL is the same.
public protocol SQLDatabase: Sendable {
    associatedtype Connection: SQLConnection
    var dialect: SQLDialect { get }
    @discardableResult
    func write<T>(_ body: (Connection) throws -> T) throws -> T
    @discardableResult
    func read<T>(_ body: (Connection) throws -> T) throws -> T
    /// A connection outside any transaction, for a single cheap statement.
    func withReader<T>(_ body: (Connection) throws -> T) throws -> T
    /// `write`, with how long the transaction held the write lock (admin and maintenance batches
    /// report it; the issue "Fast at scale" bounds it).
    func timedWrite<T>(_ body: (Connection) throws -> T) throws -> (value: T, held: Duration)
}

extension SQLDatabase {
    /// The whole call, waiting included: for a backend whose lock wait cannot be told apart.
    public func timedWrite<T>(_ body: (Connection) throws -> T) throws -> (value: T, held: Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let value = try write(body)
        return (value, clock.now - start)
    }
}
