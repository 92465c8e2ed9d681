import FoundationEssentials
import Model
import SQLite

/// A queued revocation as the sender sees it: the token opened.
public struct ClaimedRevocation: Sendable, Equatable {
    public let id: Int64
    public let connection: String
    public let clientID: String
    public let token: String
    /// Attempts so far, this one included.
    public let attempts: Int
    public let createdAt: Date
}

/// A queued revocation as operators see it (`idp-admin db stats`, `idp-admin connections revocations`): never its token.
public struct RevocationEntry: Sendable, Equatable {
    public enum Status: String, Sendable { case pending, sending, done, failed }
    public let id: Int64
    public let connection: String
    public let clientID: String
    public let status: Status
    public let attempts: Int
    public let createdAt: Date
    public let nextAttemptAt: Date?
    public let lastAttemptAt: Date?
    public let finishedAt: Date?
    public let lastError: String?
}

/// The durable queue of upstream revocations (`upstream_revocations`, migration 0013): account
/// deletion inserts into it inside its own transaction (`SQLiteAccountDeletion`); the daemon's
/// background sender claims due rows, POSTs each to Apple's revoke endpoint and records the
/// outcome, so an outage or a restart loses nothing. A token is dropped from its row the moment
/// Apple confirms it (or the row finally fails).
public struct SQLiteUpstreamRevocationQueue: Sendable {
    let database: any SQLDatabase
    let seal: UpstreamTokenSeal

    /// - Parameter key: 32 bytes, derived under `UpstreamTokenKey.purpose`.
    public init(store: some SQLStorage, key: [UInt8]) {
        database = store.records.sql
        seal = UpstreamTokenSeal(key: key)
    }

    /// Queues a revocation inside the caller's transaction.
    static func insert(token: String, connection: String, clientID: String, at created: Int64, seal: UpstreamTokenSeal,
                       on db: any SQLConnection) throws {
        let sealed = try seal.seal(token, boundTo: UpstreamTokenSeal.revocationBinding(connection: connection, clientID: clientID, createdAt: created))
        _ = try db.run(
            """
            INSERT INTO upstream_revocations (connection, client_id, sealed_token, status, created_at, next_attempt_at)
            VALUES (?1, ?2, ?3, 'pending', ?4, ?4)
            """, [.text(connection), .text(clientID), .blob(sealed), .integer(created)])
    }

    /// Queues one revocation on its own (`idp-admin`, tests).
    public func enqueue(_ token: UpstreamRefreshToken, connection: String, at time: Date) throws(StorageError) {
        try mapStorageErrors {
            try database.write { db in
                try Self.insert(token: token.token, connection: connection, clientID: token.clientID,
                                at: Int64(time.timeIntervalSince1970.rounded(.down)), seal: seal, on: db)
            }
        }
    }

    /// Takes up to `limit` due rows and claims them until `now + lease`, counting the attempt, in
    /// one write transaction. A row whose token cannot be opened is failed on the spot.
    public func claimDue(at now: Date, limit: Int, lease: TimeInterval) throws(StorageError) -> [ClaimedRevocation] {
        let time = Int64(now.timeIntervalSince1970.rounded(.down))
        return try mapStorageErrors {
            try database.write { db in
                let rows = try db.query(
                    """
                    SELECT id, connection, client_id, sealed_token, attempts, created_at FROM upstream_revocations
                    WHERE status IN ('pending', 'sending') AND next_attempt_at <= ?1 ORDER BY next_attempt_at, id LIMIT ?2
                    """, [.integer(time), .integer(Int64(limit))])
                var claimed: [ClaimedRevocation] = []
                for row in rows {
                    let id = try row.int64("id")
                    let connection = try row.string("connection")
                    let clientID = try row.string("client_id")
                    let created = try row.int64("created_at")
                    let binding = UpstreamTokenSeal.revocationBinding(connection: connection, clientID: clientID, createdAt: created)
                    guard !(try row.isNull("sealed_token")), let token = seal.open(try row.blob("sealed_token"), boundTo: binding) else {
                        try Self.finish(id, status: "failed", at: time, error: "the token cannot be opened (another key-encryption key?)", on: db)
                        continue
                    }
                    let attempts = try row.int("attempts") + 1
                    _ = try db.run(
                        "UPDATE upstream_revocations SET status = 'sending', attempts = ?2, last_attempt_at = ?3, next_attempt_at = ?4 WHERE id = ?1",
                        [.integer(id), .integer(Int64(attempts)), .integer(time), .integer(time + Int64(lease.rounded(.up)))])
                    claimed.append(ClaimedRevocation(id: id, connection: connection, clientID: clientID, token: token, attempts: attempts,
                                                     createdAt: Date(timeIntervalSince1970: TimeInterval(created))))
                }
                return claimed
            }
        }
    }

    /// Apple confirmed: the token goes, the row stays (until the purge) for operators.
    public func markDone(_ id: Int64, at now: Date) throws(StorageError) {
        try mapStorageErrors {
            try database.write { try Self.finish(id, status: "done", at: Int64(now.timeIntervalSince1970.rounded(.down)), error: nil, on: $0) }
        }
    }

    /// Not confirmed this time: back to pending, tried again at `next`.
    public func scheduleRetry(_ id: Int64, at next: Date, error: String) throws(StorageError) {
        try mapStorageErrors {
            try database.write { db in
                _ = try db.run(
                    "UPDATE upstream_revocations SET status = 'pending', next_attempt_at = ?2, last_error = ?3 WHERE id = ?1 AND status = 'sending'",
                    [.integer(id), .integer(Int64(next.timeIntervalSince1970.rounded(.up))), .text(Self.capped(error))])
            }
        }
    }

    /// Can never be sent (its connection is gone): the token goes, the error stays.
    public func markFailed(_ id: Int64, at now: Date, error: String) throws(StorageError) {
        try mapStorageErrors {
            try database.write { try Self.finish(id, status: "failed", at: Int64(now.timeIntervalSince1970.rounded(.down)), error: error, on: $0) }
        }
    }

    /// After a restart this process's claims are void (it was the only sender): due now.
    public func releaseClaims(at now: Date) throws(StorageError) {
        try mapStorageErrors {
            try database.write { db in
                _ = try db.run("UPDATE upstream_revocations SET status = 'pending', next_attempt_at = \(db.dialect.least("next_attempt_at", "?1")) WHERE status = 'sending'",
                               [.integer(Int64(now.timeIntervalSince1970.rounded(.down)))])
            }
        }
    }

    /// When the earliest waiting row is due (nil when none waits), for the sender's sleep.
    public func nextDue() throws(StorageError) -> Date? {
        try mapStorageErrors {
            try database.read { db in
                let row = try db.queryOne("SELECT min(next_attempt_at) FROM upstream_revocations WHERE status IN ('pending', 'sending')")
                guard let row, !(try row.isNull(0)) else { return nil }
                return Date(timeIntervalSince1970: TimeInterval(try row.int64(0)))
            }
        }
    }

    /// The newest `limit` rows, newest first; needs no key (no token is read).
    public static func list(in store: some SQLStorage, limit: Int) throws(StorageError) -> [RevocationEntry] {
        try mapStorageErrors {
            try store.records.sql.read { db in
                try db.query("SELECT * FROM upstream_revocations ORDER BY id DESC LIMIT ?1", [.integer(Int64(limit))]).map { row in
                    func date(_ column: String) throws -> Date? {
                        try row.isNull(column) ? nil : Date(timeIntervalSince1970: TimeInterval(try row.int64(column)))
                    }
                    let status = RevocationEntry.Status(rawValue: try row.string("status")) ?? .failed
                    return RevocationEntry(id: try row.int64("id"), connection: try row.string("connection"), clientID: try row.string("client_id"),
                                           status: status, attempts: try row.int("attempts"),
                                           createdAt: try date("created_at") ?? Date(timeIntervalSince1970: 0),
                                           nextAttemptAt: status == .pending || status == .sending ? try date("next_attempt_at") : nil,
                                           lastAttemptAt: try date("last_attempt_at"), finishedAt: try date("finished_at"),
                                           lastError: try row.optionalString("last_error"))
                }
            }
        }
    }

    /// Rows still waiting for Apple (`gatehouse_upstream_revocations_pending`, `db stats`).
    public static func pending(in store: some SQLStorage) throws(StorageError) -> Int {
        try mapStorageErrors {
            try store.records.sql.read { try $0.queryOne("SELECT count(*) FROM upstream_revocations WHERE status IN ('pending', 'sending')")?.int(0) ?? 0 }
        }
    }

    private static func finish(_ id: Int64, status: String, at time: Int64, error: String?, on db: any SQLConnection) throws {
        _ = try db.run(
            """
            UPDATE upstream_revocations SET status = ?2, sealed_token = NULL, finished_at = ?3, next_attempt_at = ?3,
                last_error = COALESCE(?4, last_error) WHERE id = ?1
            """, [.integer(id), .text(status), .integer(time), error.map { .text(capped($0)) } ?? .null])
    }

    /// Errors come from upstream answers: kept short.
    static func capped(_ error: String) -> String { String(error.prefix(500)) }
}
