import Crypto
import FoundationEssentials
import Model
import SQLite

/// Refresh tokens in SQLite. A token whose value names its place (`RefreshTokenKey.position`,
/// migration 0015) is found by the primary key (grant_id, generation) and its digest checked
/// there, so a rotation writes the family's page and no index of random digests; an older token
/// is found by its digest (`refresh_tokens_by_hash`, which covers those alone). Rotation is one
/// `BEGIN IMMEDIATE` transaction: a conditional UPDATE (`rotated_at IS NULL AND revoked_at IS NULL`)
/// picks the single winner by `changes()`, and the successor is inserted in the same transaction,
/// so a failure between "consume the old token" and "insert the new one" leaves the old token
/// live (negative-tests K03).
public struct SQLiteRefreshTokenStore: RefreshTokenStore {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func insert(_ token: RefreshToken) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in try Self.insert(token, into: connection) }
        }
    }

    public func find(_ key: RefreshTokenKey) throws(StorageError) -> RefreshToken? {
        try mapStorageErrors {
            try database.read { connection in
                try Self.find(key, on: connection)
            }
        }
    }

    public func rotate(_ key: RefreshTokenKey, successor: RefreshToken, judge: any RefreshReuseJudge,
                       at time: Date) throws(StorageError) -> RefreshRotation {
        try mapStorageErrors {
            try database.write { connection in
                let changes: [SQLValue] = [SQLValue(date: time), SQLValue(date: time), .text(successor.tokenHash), .text(key.tokenHash)]
                let changed = if let position = key.position {
                    try connection.run(
                        """
                        UPDATE refresh_tokens SET rotated_at = ?1, last_used_at = ?2, successor_hash = ?3
                        WHERE grant_id = ?5 AND generation = ?6 AND found_by_hash = 0 AND token_hash = ?4
                            AND rotated_at IS NULL AND revoked_at IS NULL
                        """, changes + [.text(position.grantID), .integer(Int64(position.generation))])
                } else {
                    try connection.run(
                        """
                        UPDATE refresh_tokens SET rotated_at = ?1, last_used_at = ?2, successor_hash = ?3
                        WHERE token_hash = ?4 AND found_by_hash = 1 AND rotated_at IS NULL AND revoked_at IS NULL
                        """, changes)
                }
                guard let presented = try Self.find(key, on: connection) else { return .unknown }
                if changed == 1 {
                    try Self.insert(successor, into: connection)
                    return .rotated(presented: presented, successor: successor)
                }
                let stored = try Self.storedSuccessor(of: presented, on: connection)
                let outcome = judge.outcome(presented: presented, storedSuccessor: stored, expectedSuccessorHash: successor.tokenHash,
                                            at: time)
                if case .reused = outcome {
                    // RFC 9700 §4.14.2: the whole family dies with the reuse, in this same transaction.
                    try SQLiteGrantStore.revoke(grantID: presented.grantID, at: time, reason: "refresh token reused", on: connection)
                }
                return outcome
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

    /// Reads the tombstones `SQLiteUserStore.delete` leaves (migration 0008).
    public func belongedToDeletedUser(tokenHash: String) throws(StorageError) -> Bool {
        try mapStorageErrors {
            try database.read { connection in
                try connection.queryOne("SELECT 1 FROM deleted_user_refresh_tokens WHERE token_hash = ? AND expires_at > ?",
                                        [.text(tokenHash), SQLValue(date: Date())]) != nil
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

    /// Stores a token whose value names its place at that generation (found by position, no digest
    /// index entry); any other token one past its family's newest (0 for the first), found by its
    /// digest. Either way a successor lands beside the token it replaces (migration 0005).
    private static func insert(_ token: RefreshToken, into connection: any SQLConnection) throws {
        let values: [SQLValue] = [
            .text(token.tokenHash), .text(token.grantID), .text(token.clientID), .text(token.userID), .text(token.scope),
            SQLValue(date: token.issuedAt), SQLValue(date: token.expiresAt), SQLValue(date: token.lastUsedAt),
            SQLValue(optionalDate: token.rotatedAt), SQLValue(optional: token.successorHash), SQLValue(optionalDate: token.revokedAt)]
        if let generation = token.generation {
            _ = try connection.run(
                """
                INSERT INTO refresh_tokens (token_hash, grant_id, client_id, user_id, scope, issued_at, expires_at, last_used_at,
                    rotated_at, successor_hash, revoked_at, generation, found_by_hash)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 0)
                """, values + [.integer(Int64(generation))])
        } else {
            _ = try connection.run(
                """
                INSERT INTO refresh_tokens (token_hash, grant_id, client_id, user_id, scope, issued_at, expires_at, last_used_at,
                    rotated_at, successor_hash, revoked_at, generation)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,
                    (SELECT COALESCE(MAX(generation) + 1, 0) FROM refresh_tokens WHERE grant_id = ?2))
                """, values)
        }
    }

    /// The token the key names, inside the caller's transaction: at its place, if the stored
    /// digest there is the presented one's; else by digest among the tokens found that way.
    static func find(_ key: RefreshTokenKey, on connection: any SQLConnection) throws -> RefreshToken? {
        guard let position = key.position else {
            return try connection.queryOne("SELECT * FROM refresh_tokens WHERE token_hash = ? AND found_by_hash = 1",
                                           [.text(key.tokenHash)]).map(token)
        }
        guard let row = try connection.queryOne(
            "SELECT * FROM refresh_tokens WHERE grant_id = ? AND generation = ? AND found_by_hash = 0",
            [.text(position.grantID), .integer(Int64(position.generation))]) else { return nil }
        let stored = try token(row)
        // A value naming a real place with a wrong secret finds nothing.
        return ConstantTime.equals(Array(stored.tokenHash.utf8), Array(key.tokenHash.utf8)) ? stored : nil
    }

    /// The token the presented one was rotated to: the next generation of its family when that is
    /// found by position, else by digest (a successor issued before migration 0015).
    static func storedSuccessor(of presented: RefreshToken, on connection: any SQLConnection) throws -> RefreshToken? {
        guard let hash = presented.successorHash else { return nil }
        if let generation = presented.generation,
           let next = try find(RefreshTokenKey(tokenHash: hash, position: .init(grantID: presented.grantID, generation: generation + 1)),
                               on: connection) {
            return next
        }
        return try find(RefreshTokenKey(tokenHash: hash), on: connection)
    }

    private static func token(_ row: Row) throws -> RefreshToken {
        RefreshToken(tokenHash: try row.string("token_hash"), grantID: try row.string("grant_id"), clientID: try row.string("client_id"),
                     userID: try row.string("user_id"), scope: try row.string("scope"), issuedAt: try row.date("issued_at"),
                     expiresAt: try row.date("expires_at"), lastUsedAt: try row.date("last_used_at"),
                     rotatedAt: try row.optionalDate("rotated_at"), successorHash: try row.optionalString("successor_hash"),
                     revokedAt: try row.optionalDate("revoked_at"), generation: try row.int("generation"))
    }
}
