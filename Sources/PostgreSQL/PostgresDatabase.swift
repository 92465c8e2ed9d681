/// A bounded pool of PostgreSQL sessions with the same `read`/`write` shape as SQLite's `Database`.
///
/// Connections open lazily up to `maxConnections`; a caller waits (up to `checkoutTimeout`) when
/// all are busy. A session that lost its server is dropped rather than returned, and the next
/// caller opens a fresh one, so the pool recovers by itself after PostgreSQL restarts; meanwhile
/// callers get connection-failure errors, which `StorageError` maps to "unavailable" (503).
public final class PostgresDatabase: SQLDatabase, @unchecked Sendable {
    public let configuration: PostgresConfiguration
    private let condition = PoolCondition()
    private var idle: [PostgresConnection] = []
    private var open = 0
    private var isClosed = false
    /// Round trips of connections that were closed or are idle are folded in here (`roundTrips`).
    private var closedRoundTrips = 0

    public var dialect: SQLDialect { .postgresql }

    /// Opens one connection now, so a wrong URL or password fails at startup rather than on the first request.
    public init(_ configuration: PostgresConfiguration) throws(PostgresError) {
        self.configuration = configuration
        let first = try PostgresConnection(configuration)
        idle.append(first)
        open = 1
    }

    deinit { close() }

    /// `body` in a READ COMMITTED transaction, committed at the end. Stores decide races with
    /// conditional UPDATEs (row locks make the second one wait and then match nothing) or
    /// `ON CONFLICT`, as they do on SQLite. A serialization failure or deadlock, after which the
    /// server has rolled everything back, reruns `body` (up to three times in all).
    @discardableResult
    public func write<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try withConnection { try Self.transaction(on: $0, begin: "BEGIN", body) }
            } catch let error as PostgresError where error.isTransactionRollback && attempt < 3 {
                attempt += 1
            }
        }
    }

    /// `body` in a read-only REPEATABLE READ transaction: every query sees one snapshot, as on SQLite.
    @discardableResult
    public func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { try Self.transaction(on: $0, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body) }
    }

    /// A pooled connection outside any transaction (each statement commits by itself).
    public func withReader<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection(body)
    }

    /// A pooled connection with no transaction opened for it (migrations take their own lock and transactions).
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    private static func transaction<T>(on connection: PostgresConnection, begin: String,
                                       _ body: (PostgresConnection) throws -> T) throws -> T {
        try connection.execute(begin)
        do {
            let value = try body(connection)
            try connection.execute("COMMIT")
            return value
        } catch {
            if connection.isHealthy && connection.isInTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    private func checkOut() throws -> PostgresConnection {
        let deadline = PoolCondition.deadline(after: configuration.checkoutTimeout)
        // An idle connection is taken under the same lock that saw it: two callers must not both
        // count on the last one. Nil: a slot is reserved, and the connection is made outside the lock.
        let taken: PostgresConnection? = try condition.withLock {
            while true {
                if isClosed { throw PostgresError.misuse("database pool is closed") }
                if let connection = idle.popLast() { return connection }
                if open < configuration.maxConnections {
                    open += 1
                    return nil
                }
                if PoolCondition.hasPassed(deadline) {
                    throw PostgresError(sqlState: "53300", message: "all \(configuration.maxConnections) database connections are busy")
                }
                condition.wait(until: deadline)
            }
        }
        guard let connection = taken else {
            do {
                return try PostgresConnection(configuration)
            } catch {
                condition.withLock {
                    open -= 1
                    condition.signal()
                }
                throw error
            }
        }
        if connection.isHealthy { return connection }
        // The server went away while this one sat idle: replace it.
        connection.close()
        do {
            return try PostgresConnection(configuration)
        } catch {
            condition.withLock {
                open -= 1
                condition.signal()
            }
            throw error
        }
    }

    private func checkIn(_ connection: PostgresConnection) {
        // A session in an unknown state (lost, or a transaction left open) is not handed to the next caller.
        let reusable = connection.isHealthy && !connection.isInTransaction
        condition.withLock {
            if reusable && !isClosed {
                idle.append(connection)
            } else {
                closedRoundTrips += connection.roundTrips
                connection.close()
                open -= 1
            }
            condition.signal()
        }
    }

    /// How many sessions are open (idle or in use).
    public var openConnections: Int { condition.withLock { open } }

    /// Round trips made by idle and closed connections so far (take it between requests, in tests and benchmarks).
    public var roundTrips: Int {
        condition.withLock { closedRoundTrips + idle.reduce(0) { $0 + $1.roundTrips } }
    }

    /// Closes idle sessions now and busy ones when they come back. Idempotent.
    public func close() {
        condition.withLock {
            isClosed = true
            for connection in idle {
                closedRoundTrips += connection.roundTrips
                connection.close()
            }
            open -= idle.count
            idle.removeAll()
            condition.broadcast()
        }
    }
}
