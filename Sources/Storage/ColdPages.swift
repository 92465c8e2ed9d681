import SQL

/// Reading the pages a delete will change before the write lock is taken (SQLite).
///
/// The purge deletes old rows, and old rows sit on pages nobody has read for a long time: on the
/// 1M-user database with cold caches each such page cost 3–6 ms to read, and a delete touching
/// five of them held the write lock 20–25 ms (every request writer waiting meanwhile). A reader
/// seeking each index entry first brings those pages into the OS page cache, which the writer's
/// connection shares, so under the lock they are memory reads. PostgreSQL locks rows, not the
/// database, and needs none of this: there the statements are nil.
public enum ColdPages {
    /// Runs `warm` for each key on a reader, in one read transaction.
    static func warm(_ statement: String?, _ keys: some Collection<SQLValue>, in database: any SQLDatabase) throws {
        guard let statement, !keys.isEmpty else { return }
        try database.read { connection in
            for key in keys { _ = try connection.queryOne(statement, [key]) }
        }
    }

    /// A grant's secondary index entries and its child rows (older tokens, transfers, sessions it
    /// started; a one-row family is in the grant's own row), for `?1` a grant id.
    public static func grant(_ dialect: SQLDialect) -> String? {
        guard dialect == .sqlite else { return nil }
        return """
            SELECT (SELECT count(*) FROM grants x INDEXED BY grants_by_user
                        WHERE x.user_id IS g.user_id AND x.client_id = g.client_id AND x.rowid = g.rowid),
                   (SELECT count(*) FROM grants y INDEXED BY grants_by_session WHERE y.session_id IS g.session_id AND y.rowid = g.rowid),
                   (SELECT count(*) FROM refresh_tokens WHERE grant_id = g.grant_id),
                   (SELECT count(*) FROM session_transfer_tokens WHERE grant_id = g.grant_id),
                   (SELECT count(*) FROM sessions WHERE parent_grant_id = g.grant_id)
            FROM grants g WHERE g.grant_id = ?1
            """
    }

    /// What a user's final deletion changes besides their grants (`SQLiteAccountDeletion`): the
    /// user's row and index entries, the rows naming them in every table that cascades (by their
    /// user indexes), their audit events (rows too: they are rewritten), and the place their
    /// pseudonym's index entries go, for `?1` a user id and `?2` the pseudonym.
    public static func user(_ dialect: SQLDialect) -> String? {
        guard dialect == .sqlite else { return nil }
        return """
            SELECT (SELECT count(*) FROM users x INDEXED BY users_by_creation WHERE x.created_at = u.created_at AND x.user_id = u.user_id),
                   (SELECT count(*) FROM users y INDEXED BY users_by_email_lookup WHERE y.email_lookup IS u.email_lookup AND y.rowid = u.rowid),
                   (SELECT count(*) FROM users z WHERE z.email_key = u.email_key),
                   (SELECT count(*) FROM sessions WHERE user_id = u.user_id),
                   (SELECT count(*) FROM authorization_codes WHERE user_id = u.user_id),
                   (SELECT count(*) FROM password_history WHERE user_id = u.user_id),
                   (SELECT count(*) FROM identities WHERE user_id = u.user_id),
                   (SELECT count(*) FROM session_transfer_tokens WHERE user_id = u.user_id),
                   (SELECT count(*) FROM one_time_codes WHERE email_key = u.email_key),
                   (SELECT sum(length(details)) FROM audit_events WHERE user_id = u.user_id),
                   (SELECT count(*) FROM audit_events WHERE user_id = ?2)
            FROM users u WHERE u.user_id = ?1
            """
    }

    /// The user's sessions, each to be warmed with `session`, for `?1` a user id.
    static let sessionsOfUser = "SELECT session_id FROM sessions WHERE user_id = ?1"

    /// Warms what deleting the user `userID` will change (`user`, then each session's entries).
    static func warmUser(_ userID: String, pseudonym: String, in database: any SQLDatabase) throws {
        guard let statement = user(database.dialect), let session = session(database.dialect) else { return }
        try database.read { connection in
            _ = try connection.queryOne(statement, [.text(userID), .text(pseudonym)])
            for row in try connection.query(sessionsOfUser, [.text(userID)]) {
                _ = try connection.queryOne(session, [.text(try row.string("session_id"))])
            }
        }
    }

    /// An audit event's entry in `audit_events_by_user`, for `?1` an event id.
    public static func auditEvent(_ dialect: SQLDialect) -> String? {
        guard dialect == .sqlite else { return nil }
        return """
            SELECT (SELECT count(*) FROM audit_events x INDEXED BY audit_events_by_user WHERE x.user_id IS a.user_id AND x.id = a.id)
            FROM audit_events a WHERE a.id = ?1
            """
    }

    /// A session's cookie and user index entries, its live-expiry entry, and the codes naming it,
    /// for `?1` a session id.
    public static func session(_ dialect: SQLDialect) -> String? {
        guard dialect == .sqlite else { return nil }
        return """
            SELECT (SELECT count(*) FROM sessions x WHERE x.cookie_hash = s.cookie_hash),
                   (SELECT count(*) FROM sessions y INDEXED BY sessions_by_user
                        WHERE y.user_id = s.user_id AND y.ended_at IS s.ended_at AND y.rowid = s.rowid),
                   (SELECT count(*) FROM sessions z INDEXED BY sessions_live_by_expiry
                        WHERE s.ended_at IS NULL AND z.expires_at = s.expires_at AND z.ended_at IS NULL AND z.rowid = s.rowid),
                   (SELECT count(*) FROM authorization_codes WHERE session_id = s.session_id)
            FROM sessions s WHERE s.session_id = ?1
            """
    }
}
