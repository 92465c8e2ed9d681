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

    /// A session's columns and its refresh activity (`refreshed_at`): the latest first issue or
    /// rotation of a token family under it, through `grants_by_session` and each grant's row (a
    /// one-row family is its grant's `refresh_*` columns). A rotation writes only its family's
    /// row (issue #18: at a million sessions, recording the activity on the session as well wrote
    /// a second random page per refresh), so the session's last activity is read from there
    /// (`Session.lastSeenAt`).
    static let select = """
        SELECT s.*, (SELECT MAX(COALESCE(g.refresh_rotated_at, g.refresh_issued_at)) FROM grants g
            WHERE g.session_id = s.session_id) AS refreshed_at
        FROM sessions s
        """

    public func find(cookieHash: String) throws(StorageError) -> Session? {
        try one("\(Self.select) WHERE s.cookie_hash = ?", cookieHash)
    }

    public func find(sessionID: String) throws(StorageError) -> Session? {
        try one("\(Self.select) WHERE s.session_id = ?", sessionID)
    }

    public func list(userID: String) throws(StorageError) -> [Session] {
        try mapStorageErrors {
            try database.read { connection in
                try connection.query("\(Self.select) WHERE s.user_id = ? ORDER BY s.created_at DESC, s.session_id DESC",
                                     [.text(userID)]).map(Self.session)
            }
        }
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
        try connection.queryOne("\(select) WHERE s.session_id = ?", [.text(sessionID)]).map(session)
    }

    /// A row of `select`. Refresh activity after the session ended is not the session's (an
    /// application's tokens may outlive it).
    private static func session(_ row: Row) throws -> Session {
        let endedAt = try row.optionalDate("ended_at")
        let stored = try row.date("last_seen_at")
        let refreshed = try row.optionalDate("refreshed_at").map { refreshed in endedAt.map { min(refreshed, $0) } ?? refreshed }
        return Session(sessionID: try row.string("session_id"), cookieHash: try row.string("cookie_hash"),
                       userID: try row.string("user_id"), authTime: try row.date("auth_time"), createdAt: try row.date("created_at"),
                       lastSeenAt: max(stored, refreshed ?? stored), expiresAt: try row.date("expires_at"), endedAt: endedAt,
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
