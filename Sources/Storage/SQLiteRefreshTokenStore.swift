import FoundationEssentials
import Model
import SQLite

/// Refresh tokens in SQLite, by the digest of their value. Rotation is one `BEGIN IMMEDIATE`
/// transaction: a conditional UPDATE (`rotated_at IS NULL AND revoked_at IS NULL`) picks the single
/// winner by `changes()`, and the successor is inserted in the same transaction, so a failure
/// between "consume the old token" and "insert the new one" leaves the old token live (K03).
public struct SQLiteRefreshTokenStore: RefreshTokenStore {
    let database: Database

    public init(store: Store) { database = store.database }

    public func insert(_ token: RefreshToken) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in try Self.insert(token, into: connection) }
        }
    }

    public func find(tokenHash: String) throws(StorageError) -> RefreshToken? {
        try mapStorageErrors {
            try database.read { connection in
                try Self.find(tokenHash: tokenHash, on: connection)
            }
        }
    }

    public func rotate(tokenHash: String, successor: RefreshToken, reuseInterval: Int,
                       at time: Date) throws(StorageError) -> RefreshRotation {
        try mapStorageErrors {
            try database.write { connection in
                let changed = try connection.run(
                    """
                    UPDATE refresh_tokens SET rotated_at = ?, last_used_at = ?, successor_hash = ?
                    WHERE token_hash = ? AND rotated_at IS NULL AND revoked_at IS NULL
                    """,
                    [SQLValue(date: time), SQLValue(date: time), .text(successor.tokenHash), .text(tokenHash)])
                guard let presented = try Self.find(tokenHash: tokenHash, on: connection) else { return .unknown }
                if changed == 1 {
                    try Self.insert(successor, into: connection)
                    return .rotated(presented: presented, successor: successor)
                }
                let stored = try presented.successorHash.flatMap { hash in try Self.find(tokenHash: hash, on: connection) }
                return RefreshRotation.decide(presented: presented, storedSuccessor: stored, expectedSuccessorHash: successor.tokenHash,
                                              reuseInterval: reuseInterval, at: time)
            }
        }
    }

    public func revokeFamily(grantID: String, at time: Date) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                _ = try connection.run("UPDATE refresh_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL",
                                       [SQLValue(date: time), .text(grantID)])
            }
        }
    }

    public func liveCountsBySession(userID: String, at time: Date) throws(StorageError) -> [String: Int] {
        try mapStorageErrors {
            try database.read { connection in
                let rows = try connection.query(
                    """
                    SELECT g.session_id AS session_id, COUNT(*) AS live
                    FROM refresh_tokens r JOIN grants g ON g.grant_id = r.grant_id
                    WHERE g.user_id = ? AND g.session_id IS NOT NULL AND g.revoked_at IS NULL
                        AND r.rotated_at IS NULL AND r.revoked_at IS NULL AND r.expires_at > ?
                    GROUP BY g.session_id
                    """,
                    [.text(userID), SQLValue(date: time)])
                var counts: [String: Int] = [:]
                for row in rows { counts[try row.string("session_id")] = try row.int("live") }
                return counts
            }
        }
    }

    /// Appends the token to its family: generation one past the family's newest (0 for the first),
    /// so a successor is stored beside the token it replaces (migration 0005).
    private static func insert(_ token: RefreshToken, into connection: Connection) throws {
        _ = try connection.run(
            """
            INSERT INTO refresh_tokens (token_hash, grant_id, client_id, user_id, scope, issued_at, expires_at, last_used_at,
                rotated_at, successor_hash, revoked_at, generation)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,
                (SELECT COALESCE(MAX(generation) + 1, 0) FROM refresh_tokens WHERE grant_id = ?2))
            """,
            [.text(token.tokenHash), .text(token.grantID), .text(token.clientID), .text(token.userID), .text(token.scope),
             SQLValue(date: token.issuedAt), SQLValue(date: token.expiresAt), SQLValue(date: token.lastUsedAt),
             SQLValue(optionalDate: token.rotatedAt), SQLValue(optional: token.successorHash), SQLValue(optionalDate: token.revokedAt)])
    }

    /// The token by digest, inside the caller's transaction.
    static func find(tokenHash: String, on connection: Connection) throws -> RefreshToken? {
        try connection.queryOne("SELECT * FROM refresh_tokens WHERE token_hash = ?", [.text(tokenHash)]).map(token)
    }

    private static func token(_ row: Row) throws -> RefreshToken {
        RefreshToken(tokenHash: try row.string("token_hash"), grantID: try row.string("grant_id"), clientID: try row.string("client_id"),
                     userID: try row.string("user_id"), scope: try row.string("scope"), issuedAt: try row.date("issued_at"),
                     expiresAt: try row.date("expires_at"), lastUsedAt: try row.date("last_used_at"),
                     rotatedAt: try row.optionalDate("rotated_at"), successorHash: try row.optionalString("successor_hash"),
                     revokedAt: try row.optionalDate("revoked_at"))
    }
}

/// Ends sessions and revokes their token families, each call in one transaction: grants are marked
/// revoked (so their access tokens fail validation through `grant_id`) and their refresh tokens revoked.
public struct SessionRevocation: Sendable {
    let database: Database

    public init(store: Store) { database = store.database }

    /// Ends the session and revokes every grant issued under it. Returns how many grants were newly
    /// revoked. Throws `.notFound` for an unknown session.
    @discardableResult
    public func revokeSession(sessionID: String, at time: Date, reason: String) throws(StorageError) -> Int {
        try mapStorageErrors {
            try database.write { connection in
                guard try connection.queryOne("SELECT 1 FROM sessions WHERE session_id = ?", [.text(sessionID)]) != nil else {
                    throw StorageError.notFound("session \(sessionID)")
                }
                _ = try connection.run("UPDATE sessions SET ended_at = ? WHERE session_id = ? AND ended_at IS NULL",
                                       [SQLValue(date: time), .text(sessionID)])
                return try Self.revokeGrants(where: "session_id = ?", [.text(sessionID)], at: time, reason: reason, in: connection)
            }
        }
    }

    /// Ends every live session of the user and revokes their grants. Returns (sessions ended, grants revoked).
    @discardableResult
    public func revokeAllSessions(userID: String, at time: Date, reason: String) throws(StorageError) -> (sessions: Int, grants: Int) {
        try mapStorageErrors {
            try database.write { connection in
                let sessions = try connection.run("UPDATE sessions SET ended_at = ? WHERE user_id = ? AND ended_at IS NULL",
                                                  [SQLValue(date: time), .text(userID)])
                let grants = try Self.revokeGrants(where: "session_id IN (SELECT session_id FROM sessions WHERE user_id = ?)",
                                                   [.text(userID)], at: time, reason: reason, in: connection)
                return (sessions, grants)
            }
        }
    }

    /// Revokes the user's grants, optionally only those of one client. Returns how many were newly revoked.
    @discardableResult
    public func revokeGrants(userID: String, clientID: String?, at time: Date, reason: String) throws(StorageError) -> Int {
        try mapStorageErrors {
            try database.write { connection in
                if let clientID {
                    return try Self.revokeGrants(where: "user_id = ? AND client_id = ?", [.text(userID), .text(clientID)],
                                                 at: time, reason: reason, in: connection)
                }
                return try Self.revokeGrants(where: "user_id = ?", [.text(userID)], at: time, reason: reason, in: connection)
            }
        }
    }

    /// `condition` is a fixed SQL fragment over `grants` with `?` placeholders for `bindings`.
    private static func revokeGrants(where condition: String, _ bindings: [SQLValue], at time: Date, reason: String,
                                     in connection: Connection) throws -> Int {
        _ = try connection.run(
            "UPDATE refresh_tokens SET revoked_at = ? WHERE revoked_at IS NULL AND grant_id IN (SELECT grant_id FROM grants WHERE \(condition))",
            [SQLValue(date: time)] + bindings)
        return try connection.run("UPDATE grants SET revoked_at = ?, revoke_reason = ? WHERE revoked_at IS NULL AND \(condition)",
                                  [SQLValue(date: time), .text(reason)] + bindings)
    }
}
