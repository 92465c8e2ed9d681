import FoundationEssentials
import Model
import SQLite

/// Login throttle states in SQLite; updates are read-modify-write inside one write transaction.
public struct SQLiteLoginThrottleStore: LoginThrottleStore {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func state(key: String) throws(StorageError) -> ThrottleState? {
        try mapStorageErrors {
            try database.read { connection in
                try connection.queryOne("SELECT * FROM login_throttle WHERE key = ?", [.text(key)]).map(Self.state)
            }
        }
    }

    public func update(key: String, _ update: @Sendable (ThrottleState?) -> ThrottleState) throws(StorageError) -> ThrottleState {
        try mapStorageErrors {
            try database.write { connection in
                let current = try connection.queryOne("SELECT * FROM login_throttle WHERE key = ?", [.text(key)]).map(Self.state)
                let next = update(current)
                try connection.run(
                    """
                    INSERT INTO login_throttle (key, failures, window_started_at, last_failure_at, locked_until) VALUES (?1, ?2, ?3, ?4, ?5)
                    ON CONFLICT (key) DO UPDATE SET failures = ?2, window_started_at = ?3, last_failure_at = ?4, locked_until = ?5
                    """,
                    [.text(key), .integer(Int64(next.failures)), .integer(Int64(next.windowStartedAt.timeIntervalSince1970)),
                     .integer(Int64(next.lastFailureAt.timeIntervalSince1970 * 1000)),
                     next.lockedUntil.map { .integer(Int64($0.timeIntervalSince1970.rounded(.up))) } ?? .null])
                return next
            }
        }
    }

    public func clear(key: String) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in try Self.clear(key: key, on: connection) }
        }
    }

    /// `clear` inside the caller's transaction.
    static func clear(key: String, on connection: any SQLConnection) throws {
        _ = try connection.run("DELETE FROM login_throttle WHERE key = ?", [.text(key)])
    }

    /// Every state whose key starts with one of `prefixes` (an account's pair and account keys), for
    /// `idp-admin users show`. Each prefix is a range on the primary key on SQLite (`SQLDialect.hasPrefix`).
    public func states(withPrefixes prefixes: [String]) throws(StorageError) -> [ThrottleState] {
        try mapStorageErrors {
            try database.read { connection in
                try prefixes.flatMap { prefix in
                    try connection.query("SELECT * FROM login_throttle WHERE \(connection.dialect.hasPrefix("key", "?1")) ORDER BY key",
                                         [.text(prefix)]).map(Self.state)
                }
            }
        }
    }

    /// Deletes every state whose key starts with one of `prefixes`; returns how many (`idp-admin users unblock`).
    @discardableResult
    public func clear(withPrefixes prefixes: [String]) throws(StorageError) -> Int {
        try mapStorageErrors {
            try database.write { connection in
                try prefixes.reduce(0) { count, prefix in
                    count + (try connection.run("DELETE FROM login_throttle WHERE \(connection.dialect.hasPrefix("key", "?1"))", [.text(prefix)]))
                }
            }
        }
    }

    private static func state(_ row: Row) throws -> ThrottleState {
        ThrottleState(key: try row.string("key"), failures: try row.int("failures"),
                      windowStartedAt: Date(timeIntervalSince1970: TimeInterval(try row.int64("window_started_at"))),
                      lastFailureAt: Date(timeIntervalSince1970: TimeInterval(try row.int64("last_failure_at")) / 1000),
                      lockedUntil: try row.isNull("locked_until") ? nil : Date(timeIntervalSince1970: TimeInterval(try row.int64("locked_until"))))
    }
}
