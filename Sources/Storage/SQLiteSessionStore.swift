import FoundationEssentials
import Model
import SQLite

/// Browser sign-in sessions in SQLite, found by the digest of their cookie or by `sid`.
public struct SQLiteSessionStore: SessionStore {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func create(_ session: Session) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in try Self.insert(session, into: connection) }
        }
    }

    /// Inserts the session inside the caller's transaction.
    static func insert(_ session: Session, into connection: any SQLConnection) throws {
        _ = try connection.run(
            """
            INSERT INTO sessions (session_id, cookie_hash, user_id, auth_time, created_at, last_seen_at, expires_at,
                ended_at, device_name, ip, parent_grant_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [.text(session.sessionID), .text(session.cookieHash), .text(session.userID), SQLValue(date: session.authTime),
             SQLValue(date: session.createdAt), SQLValue(date: session.lastSeenAt), SQLValue(date: session.expiresAt),
             SQLValue(optionalDate: session.endedAt), SQLValue(optional: session.deviceName), SQLValue(optional: session.ip),
             SQLValue(optional: session.parentGrantID)])
    }

    public func find(cookieHash: String) throws(StorageError) -> Session? {
        try one("SELECT * FROM sessions WHERE cookie_hash = ?", cookieHash)
    }

    public func find(sessionID: String) throws(StorageError) -> Session? {
        try one("SELECT * FROM sessions WHERE session_id = ?", sessionID)
    }

    public func list(userID: String) throws(StorageError) -> [Session] {
        try mapStorageErrors {
            try database.read { connection in
                try connection.query("SELECT * FROM sessions WHERE user_id = ? ORDER BY created_at DESC, session_id DESC",
                                     [.text(userID)]).map(Self.session)
            }
        }
    }

    /// Records activity; does nothing to an ended session. Throws `.notFound` for an unknown id.
    public func touch(sessionID: String, at time: Date) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                try Self.recordActivity(sessionID, at: time, on: connection)
                try Self.requireExists(sessionID, in: connection)
            }
        }
    }

    /// `touch` inside the caller's transaction, silent about an unknown or ended session (the refresh
    /// grant's rotation records its session's activity this way: `SQLiteRefreshTokenStore`).
    static func recordActivity(_ sessionID: String, at time: Date, on connection: any SQLConnection) throws {
        _ = try connection.run("UPDATE sessions SET last_seen_at = ? WHERE session_id = ? AND ended_at IS NULL",
                               [SQLValue(date: time), .text(sessionID)])
    }

    /// Idempotent: ending an ended session keeps the first end time. Throws `.notFound` for an unknown id.
    public func end(sessionID: String, at time: Date) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                _ = try connection.run("UPDATE sessions SET ended_at = ? WHERE session_id = ? AND ended_at IS NULL",
                                       [SQLValue(date: time), .text(sessionID)])
                try Self.requireExists(sessionID, in: connection)
            }
        }
    }

    private static func requireExists(_ sessionID: String, in connection: any SQLConnection) throws {
        guard try connection.queryOne("SELECT 1 FROM sessions WHERE session_id = ?", [.text(sessionID)]) != nil else {
            throw StorageError.notFound("session \(sessionID)")
        }
    }

    private func one(_ sql: String, _ key: String) throws(StorageError) -> Session? {
        try mapStorageErrors {
            try database.read { connection in try connection.queryOne(sql, [.text(key)]).map(Self.session) }
        }
    }

    /// The session by id, inside the caller's transaction.
    static func find(sessionID: String, on connection: any SQLConnection) throws -> Session? {
        try connection.queryOne("SELECT * FROM sessions WHERE session_id = ?", [.text(sessionID)]).map(session)
    }

    private static func session(_ row: Row) throws -> Session {
        Session(sessionID: try row.string("session_id"), cookieHash: try row.string("cookie_hash"), userID: try row.string("user_id"),
                authTime: try row.date("auth_time"), createdAt: try row.date("created_at"), lastSeenAt: try row.date("last_seen_at"),
                expiresAt: try row.date("expires_at"), endedAt: try row.optionalDate("ended_at"),
                deviceName: try row.optionalString("device_name"), ip: try row.optionalString("ip"),
                parentGrantID: try row.optionalString("parent_grant_id"))
    }

    /// Sessions not ended and not expired at `time` (the active-sessions gauge).
    public func liveCount(at time: Date) throws(StorageError) -> Int {
        try mapStorageErrors {
            try database.read { connection in
                try connection.queryOne("SELECT count(*) AS n FROM sessions WHERE ended_at IS NULL AND expires_at > ?",
                                        [.integer(Int64(time.timeIntervalSince1970))])?.int("n") ?? 0
            }
        }
    }
}
