import FoundationEssentials
import Model
import SQLite

/// Users in SQLite; `email_key` (the lower-cased email, prefixed by an upstream connection's name for
/// its users) makes emails unique within a connection regardless of case; `find(email:)` looks in the
/// database connection only.
public struct SQLiteUserStore: UserStore {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func create(_ user: User) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                _ = try connection.run(
                    """
                    INSERT INTO users (user_id, email, email_key, email_verified, password_hash, name, given_name, family_name,
                        nickname, picture, blocked, logins_count, last_login_at, created_at, updated_at, user_metadata, connection, email_lookup)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
                    """, Self.columns(user))
            }
        }
    }

    public func find(userID: String) throws(StorageError) -> User? {
        try mapStorageErrors {
            try database.read { connection in
                try Self.find(userID: userID, on: connection)
            }
        }
    }

    public func find(email: String) throws(StorageError) -> User? {
        try mapStorageErrors {
            try database.read { connection in
                try connection.queryOne("SELECT * FROM users WHERE email_key = ?", [.text(User.emailKey(email))]).map(Self.user)
            }
        }
    }

    /// Users oldest first, optionally only those whose email contains `emailContaining`
    /// (case-insensitively), at most `limit`. For operators; not part of `UserStore`.
    /// Users oldest first; `after` (a user id) starts the page after that user, for paging.
    public func list(emailContaining: String? = nil, after: String? = nil, limit: Int = 100) throws(StorageError) -> [User] {
        try mapStorageErrors {
            try database.read { connection in
                // Without a filter a page is an index walk (users_by_creation) from the cursor; a substring
                // filter has to look at every email and stops once the page is full.
                let rows = switch (emailContaining, after) {
                case (nil, nil):
                    try connection.query("SELECT * FROM users ORDER BY created_at, user_id LIMIT ?1", [.integer(Int64(limit))])
                case (nil, let after?):
                    try connection.query(
                        """
                        SELECT * FROM users WHERE (created_at, user_id) > (SELECT created_at, user_id FROM users WHERE user_id = ?2)
                        ORDER BY created_at, user_id LIMIT ?1
                        """, [.integer(Int64(limit)), .text(after)])
                default:
                    try connection.query(
                        """
                        SELECT * FROM users WHERE (?1 IS NULL OR instr(email_lookup, ?1) > 0)
                            AND (?3 IS NULL OR (created_at, user_id) > (SELECT created_at, user_id FROM users WHERE user_id = ?3))
                        ORDER BY created_at, user_id LIMIT ?2
                        """,
                        [SQLValue(optional: emailContaining.map(User.emailKey)), .integer(Int64(limit)), SQLValue(optional: after)])
                }
                return try rows.map(Self.user)
            }
        }
    }

    public func update(_ user: User) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                let changed = try connection.run(
                    """
                    UPDATE users SET email = ?2, email_key = ?3, email_verified = ?4, password_hash = ?5, name = ?6,
                        given_name = ?7, family_name = ?8, nickname = ?9, picture = ?10, blocked = ?11, logins_count = ?12,
                        last_login_at = ?13, created_at = ?14, updated_at = ?15, user_metadata = ?16, connection = ?17, email_lookup = ?18
                    WHERE user_id = ?1
                    """, Self.columns(user))
                guard changed == 1 else { throw StorageError.notFound("user \(user.userID)") }
            }
        }
    }

    public func recordLogin(userID: String, at time: Date, rehashedPassword: String?) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                try Self.recordLogin(userID: userID, at: time, rehashedPassword: rehashedPassword, on: connection)
            }
        }
    }

    /// `recordLogin` inside the caller's transaction; throws `.notFound` for an unknown user.
    static func recordLogin(userID: String, at time: Date, rehashedPassword: String?, on connection: any SQLConnection) throws {
        let changed = try connection.run(
            """
            UPDATE users SET logins_count = logins_count + 1, last_login_at = ?2, password_hash = coalesce(?3, password_hash)
            WHERE user_id = ?1
            """, [.text(userID), SQLValue(date: time), SQLValue(optional: rehashedPassword)])
        guard changed == 1 else { throw StorageError.notFound("user \(userID)") }
    }

    /// What `revokeAccess` ended.
    public struct RevokedAccess: Sendable, Equatable {
        public var grants: Int
        public var sessions: Int
        public var codes: Int
    }

    /// Makes everything a user holds useless, in one transaction: revokes their live grants (and
    /// with them their refresh tokens and, through `grant_id`, their access tokens), ends their
    /// live sessions, and deletes their authorization codes not yet redeemed. For operators
    /// (blocking, password resets); not part of `UserStore`.
    @discardableResult
    public func revokeAccess(userID: String, at time: Date, reason: String) throws(StorageError) -> RevokedAccess {
        try mapStorageErrors {
            try database.write { connection in
                let grants = try connection.run(
                    "UPDATE grants SET revoked_at = ?1, revoke_reason = ?2 WHERE user_id = ?3 AND revoked_at IS NULL",
                    [SQLValue(date: time), .text(reason), .text(userID)])
                // Through the user's grants (indexed) rather than refresh_tokens.user_id (not indexed: an
                // index there would cost every rotation a page write); a token's user is its grant's.
                _ = try connection.run(
                    """
                    UPDATE refresh_tokens SET revoked_at = ?1
                    WHERE grant_id IN (SELECT grant_id FROM grants WHERE user_id = ?2) AND revoked_at IS NULL
                    """,
                    [SQLValue(date: time), .text(userID)])
                let sessions = try connection.run(
                    "UPDATE sessions SET ended_at = ?1 WHERE user_id = ?2 AND ended_at IS NULL", [SQLValue(date: time), .text(userID)])
                let codes = try connection.run(
                    "DELETE FROM authorization_codes WHERE user_id = ?1 AND used_at IS NULL", [.text(userID)])
                return RevokedAccess(grants: grants, sessions: sessions, codes: codes)
            }
        }
    }

    /// Rows one write transaction of `delete(userID:)` removes at most before the user's row goes.
    public static let deletionBatch = 500

    /// Deletes a user; foreign keys cascade to their sessions, codes and grants. Throws `.notFound`
    /// for an unknown id. For operators; not part of `UserStore`.
    ///
    /// The user's refresh tokens go first, at most `deletionBatch` per write transaction (each
    /// remembered by digest if it could still be presented), so a user with a great many tokens
    /// never holds the write lock for long; the last transaction deletes the user and whatever was
    /// issued meanwhile. Interrupted half-way, the user is still there with fewer tokens, whose
    /// refreshes already answer that the user is gone: run the deletion again.
    @discardableResult
    public func delete(userID: String) throws(StorageError) -> WriteHolds {
        var holds = WriteHolds()
        try mapStorageErrors {
            let now = Int64(Date().timeIntervalSince1970)
            guard try database.read({ try $0.queryOne("SELECT 1 FROM users WHERE user_id = ?", [.text(userID)]) }) != nil else {
                throw StorageError.notFound("user \(userID)")
            }
            try Self.deleteRefreshTokensInBatches(userID: userID, now: now, database: database, holds: &holds)
            try ColdPages.warmUser(userID, pseudonym: "", in: database)
            let (_, held) = try database.timedWrite { connection in
                // Forget a batch of tombstones that would have expired anyway (an index range, bounded).
                _ = try connection.run(
                    """
                    DELETE FROM deleted_user_refresh_tokens WHERE token_hash IN
                        (SELECT token_hash FROM deleted_user_refresh_tokens WHERE expires_at <= ?1 LIMIT ?2)
                    """, [.integer(now), .integer(Int64(Self.deletionBatch))])
                // Tokens rotated in since the last batch (a handful at most) go with the cascade.
                try Self.rememberRemainingTokens(userID: userID, now: now, on: connection)
                guard try connection.run("DELETE FROM users WHERE user_id = ?", [.text(userID)]) == 1 else {
                    throw StorageError.notFound("user \(userID)")
                }
            }
            holds.record(held)
        }
        return holds
    }

    /// The user's refresh tokens and grants in short write transactions, each stopping at
    /// `deletionBatch` rows or `deletionBatchTime`, whichever comes first, so no deletion holds the
    /// write lock for long: first the older tokens (`refresh_tokens`, each remembered by digest while
    /// it could still be presented), then the grants, each with its one-row family (remembered by
    /// `RefreshTokenKey.tombstone` while it could still be refreshed). Shared with account deletion
    /// (`SQLiteAccountDeletion`), which deletes the rest in one transaction after. Returns how many
    /// of the deleted grants were live.
    @discardableResult
    static func deleteRefreshTokensInBatches(userID: String, now: Int64, database: any SQLDatabase, holds: inout WriteHolds) throws -> Int {
        var live = 0
        for step in [deleteTokenBatch, deleteGrantBatch] {
            while true {
                // The batch's rows are found on a reader, outside the write lock: on a large
                // database finding them costs cold page reads, which no writer should wait for.
                let rows = try database.read { connection in try step.candidates(userID, connection) }
                guard !rows.isEmpty else { break }
                try ColdPages.warm(step.warm(database.dialect), try rows.map { .text(try $0.string("grant_id")) }, in: database)
                var next = rows.startIndex
                while next < rows.endIndex {
                    let (liveGrants, held) = try database.timedWrite { connection in
                        try step.delete(rows, &next, userID, now, connection)
                    }
                    holds.record(held)
                    live += liveGrants
                    // Lets the daemon's writers, polling every millisecond, take the lock between batches.
                    Purger.sleep(.milliseconds(2))
                }
                if rows.count < deletionBatch { break }
            }
        }
        return live
    }

    /// `warm` reads, on a reader, the pages the deletes of a batch's rows (by `grant_id`) will change (`ColdPages`).
    typealias BatchStep = (candidates: @Sendable (String, any SQLConnection) throws -> [Row],
                           warm: @Sendable (SQLDialect) -> String?,
                           delete: @Sendable ([Row], inout Int, String, Int64, any SQLConnection) throws -> Int)

    static let deleteTokenBatch: BatchStep = (
        candidates: { userID, connection in
            // Through the user's grants (an index range each), never a pass over every refresh token.
            try connection.query(
                """
                SELECT r.grant_id, r.generation, r.token_hash, r.expires_at FROM grants g JOIN refresh_tokens r ON r.grant_id = g.grant_id
                WHERE g.user_id = ?1 LIMIT ?2
                """, [.text(userID), .integer(Int64(deletionBatch))])
        },
        // The candidate query has just read these rows' pages; older tokens are few since families.
        warm: { _ in nil },
        delete: { rows, next, userID, now, connection in
            let started = ContinuousClock.now
            repeat {
                let row = rows[next]
                let expires = try row.int64("expires_at")
                if expires > now {
                    _ = try connection.run("INSERT INTO deleted_user_refresh_tokens (token_hash, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
                                           [.text(try row.string("token_hash")), .integer(expires)])
                }
                _ = try connection.run("DELETE FROM refresh_tokens WHERE grant_id = ? AND generation = ?",
                                       [.text(try row.string("grant_id")), .integer(Int64(try row.int("generation")))])
                next += 1
            } while next < rows.endIndex && ContinuousClock.now - started < deletionBatchTime
            return 0
        })

    /// Grants with their one-row families (in their rows), each live family remembered by its tombstone key.
    static let deleteGrantBatch: BatchStep = (
        candidates: { userID, connection in
            try connection.query(
                """
                SELECT grant_id, revoked_at, refresh_expires_at AS expires_at FROM grants WHERE user_id = ?1 LIMIT ?2
                """, [.text(userID), .integer(Int64(deletionBatch))])
        },
        warm: ColdPages.grant,
        delete: { rows, next, userID, now, connection in
            let started = ContinuousClock.now
            var live = 0
            repeat {
                let row = rows[next]
                let grantID = try row.string("grant_id")
                // Read outside the lock: the family's expiry as then, and a family created since is
                // remembered by the final transaction (`rememberRemainingTokens`).
                if let expires = try row.get("expires_at", as: Int64?.self), expires > now {
                    _ = try connection.run("INSERT INTO deleted_user_refresh_tokens (token_hash, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
                                           [.text(RefreshTokenKey.tombstone(grantID: grantID)), .integer(expires)])
                }
                let deleted = try connection.run("DELETE FROM grants WHERE grant_id = ? AND user_id = ?", [.text(grantID), .text(userID)])
                if deleted == 1, try row.isNull("revoked_at") { live += 1 }
                next += 1
            } while next < rows.endIndex && ContinuousClock.now - started < deletionBatchTime
            return live
        })

    /// Longest a deletion batch goes on taking rows (it then commits what it did).
    static let deletionBatchTime: Duration = .milliseconds(2)

    /// Tombstones for the user's refresh tokens and families issued since the batches, inside the
    /// final transaction (a handful at most; the cascade then deletes them).
    static func rememberRemainingTokens(userID: String, now: Int64, on connection: any SQLConnection) throws {
        _ = try connection.run(
            """
            INSERT INTO deleted_user_refresh_tokens (token_hash, expires_at)
            SELECT token_hash, expires_at FROM refresh_tokens
            WHERE grant_id IN (SELECT grant_id FROM grants WHERE user_id = ?1) AND expires_at > ?2
            ON CONFLICT DO NOTHING
            """, [.text(userID), .integer(now)])
        _ = try connection.run(
            """
            INSERT INTO deleted_user_refresh_tokens (token_hash, expires_at)
            SELECT ?3 || grant_id, refresh_expires_at FROM grants WHERE user_id = ?1 AND refresh_expires_at > ?2
            ON CONFLICT DO NOTHING
            """, [.text(userID), .integer(now), .text(RefreshTokenKey.tombstone(grantID: ""))])
    }

    /// Inserts a user inside the caller's transaction.
    static func insert(_ user: User, on connection: any SQLConnection) throws {
        _ = try connection.run(
            """
            INSERT INTO users (user_id, email, email_key, email_verified, password_hash, name, given_name, family_name,
                nickname, picture, blocked, logins_count, last_login_at, created_at, updated_at, user_metadata, connection, email_lookup)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
            """, columns(user))
    }

    private static func columns(_ user: User) -> [SQLValue] {
        [.text(user.userID), .text(user.email), .text(user.emailKey), SQLValue(flag: user.emailVerified),
         SQLValue(optional: user.passwordHash), SQLValue(optional: user.name), SQLValue(optional: user.givenName),
         SQLValue(optional: user.familyName), SQLValue(optional: user.nickname), SQLValue(optional: user.picture),
         SQLValue(flag: user.blocked), .integer(Int64(user.loginsCount)), SQLValue(optionalDate: user.lastLoginAt),
         SQLValue(date: user.createdAt), SQLValue(date: user.updatedAt), .text(StringMapJSON.encode(user.userMetadata)),
         SQLValue(optional: user.connection), .text(User.emailKey(user.email))]
    }

    /// The user by id, inside the caller's transaction.
    static func find(userID: String, on connection: any SQLConnection) throws -> User? {
        try connection.queryOne("SELECT * FROM users WHERE user_id = ?", [.text(userID)]).map(user)
    }

    static func user(_ row: Row) throws -> User {
        User(userID: try row.string("user_id"), email: try row.string("email"), emailVerified: try row.flag("email_verified"),
             passwordHash: try row.optionalString("password_hash"), name: try row.optionalString("name"),
             givenName: try row.optionalString("given_name"), familyName: try row.optionalString("family_name"),
             nickname: try row.optionalString("nickname"), picture: try row.optionalString("picture"),
             blocked: try row.flag("blocked"), loginsCount: try row.int("logins_count"),
             lastLoginAt: try row.optionalDate("last_login_at"),
             userMetadata: StringMapJSON.decode(try row.string("user_metadata")) ?? [:], createdAt: try row.date("created_at"),
             updatedAt: try row.date("updated_at"), connection: try row.optionalString("connection"))
    }
}
