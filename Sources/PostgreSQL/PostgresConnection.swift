/// One PostgreSQL session, seen by the stores through `SQLConnection`.
///
/// Not thread-safe: the pool (`PostgresDatabase`) hands it to one thread at a time, which is
/// why it is `@unchecked Sendable`. Statements are sent with `PQexecParams` (one round trip,
/// no server-side prepared state to lose on reconnection); the `?N` → `$N` rewrite of each
/// distinct SQL text is done once and cached.
public final class PostgresConnection: SQLConnection, @unchecked Sendable {
    let handle: LibPQHandle
    private var rewritten: [String: (sql: String, count: Int)] = [:]
    static let cacheLimit = 256
    /// Round trips to the server on this connection, for tests and `scripts/bench`.
    public private(set) var roundTrips = 0

    public var dialect: SQLDialect { .postgresql }

    /// Connects now; throws `PostgresError` (SQLSTATE 08000) naming the server, never the password.
    public init(_ configuration: PostgresConfiguration) throws(PostgresError) {
        handle = try LibPQHandle(parameters: configuration.connectionParameters)
    }

    /// Whether the session still works as far as libpq knows (a lost server shows after the next statement).
    public var isHealthy: Bool { handle.isConnected }
    /// Whether a transaction is open or failed on this session.
    public var isInTransaction: Bool { handle.isInTransaction }

    public func close() { handle.close() }

    public func execute(_ sql: String) throws {
        roundTrips += 1
        try handle.execute(sql)
    }

    @discardableResult
    public func run(_ sql: String, _ bindings: [SQLValue]) throws -> Int {
        try send(sql, bindings).changed
    }

    public func query(_ sql: String, _ bindings: [SQLValue]) throws -> [Row] {
        try send(sql, bindings).rows
    }

    public func queryOne(_ sql: String, _ bindings: [SQLValue]) throws -> Row? {
        try send(sql, bindings).rows.first
    }

    private func send(_ sql: String, _ bindings: [SQLValue]) throws -> (rows: [Row], changed: Int) {
        let statement = postgresText(sql)
        guard statement.count == bindings.count else {
            throw PostgresError.misuse("expected \(statement.count) bindings, got \(bindings.count)", sql: sql)
        }
        roundTrips += 1
        do {
            return try handle.execute(statement.sql, bindings)
        } catch {
            // Report the statement as the store wrote it.
            throw PostgresError(sqlState: error.sqlState, message: error.message, sql: sql)
        }
    }

    private func postgresText(_ sql: String) -> (sql: String, count: Int) {
        if let cached = rewritten[sql] { return cached }
        let statement = Placeholders.postgres(sql)
        if rewritten.count >= Self.cacheLimit { rewritten.removeAll() }
        rewritten[sql] = statement
        return statement
    }
}
