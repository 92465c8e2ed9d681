import Crypto
import FoundationEssentials
import Model
import SQLite

/// Refresh tokens on any SQL backend.
///
/// A family issued since migration 0017 is one row (`RefreshTokenKey.family`), its grant's since
/// migration 0019: its current generation, salt, lifetimes and last rotation; its revocation is
/// its grant's. A token of it is read as that row seen from the token's generation
/// (`SQLiteRefreshFamilies`), and a rotation is one conditional UPDATE (`generation = g + 1 WHERE
/// generation = g` and the grant live) whose returned row picks the single winner: no INSERT, no
/// index entry, and on PostgreSQL no BEGIN/COMMIT (`rotateFamilyRow`).
///
/// Older tokens stay in `refresh_tokens`: `rt1.…` values by the primary key (grant_id, generation)
/// with their digest checked there (migration 0015), digest-only ones by `refresh_tokens_by_hash`.
/// Their rotation marks the row rotated and, in the same `BEGIN IMMEDIATE` transaction, creates the
/// family row their successor lives in (when the successor carries a salt), so a failure between
/// "consume the old token" and "store the new one" leaves the old token live (negative-tests K03).
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

    /// A rotation writes the token's family and nothing of its session: the session's last
    /// activity is read from its families (`SQLiteSessionStore.select`).
    public func rotate(_ key: RefreshTokenKey, successor: RefreshToken, judge: any RefreshReuseJudge,
                       at time: Date) throws(StorageError) -> RefreshRotation {
        try mapStorageErrors {
            if key.inFamilyRow, let position = key.position {
                return try rotateFamilyRow(position, judge: judge, expectedSuccessorHash: successor.tokenHash, at: time)
            }
            return try database.write { connection in
                try Self.rotateOlderToken(key, successor: successor, judge: judge, at: time, on: connection)
            }
        }
    }

    /// A token stored before one-row families: marks its row rotated and stores the successor (in
    /// the family row a salted successor lives in), or lets the judge decide.
    private static func rotateOlderToken(_ key: RefreshTokenKey, successor: RefreshToken, judge: any RefreshReuseJudge,
                                         at time: Date, on connection: any SQLConnection) throws -> RefreshRotation {
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
        guard let presented = try find(key, on: connection) else { return .unknown }
        if changed == 1 {
            try insert(successor, into: connection)
            return .rotated(presented: presented, successor: successor)
        }
        let stored = try storedSuccessor(of: presented, on: connection)
        return try judged(presented, stored: stored, judge: judge, expectedSuccessorHash: successor.tokenHash, at: time, on: connection)
    }

    /// A one-row family's rotation is one statement (`advance`, which returns the row it wrote), so
    /// on PostgreSQL a refresh's only write is one round trip with no BEGIN/COMMIT. Only when it
    /// matches nothing (a retry, reuse, a revoked or unknown token) does a transaction read the row
    /// and let the judge decide, revoking the family on reuse in that same transaction.
    private func rotateFamilyRow(_ position: RefreshTokenKey.Position, judge: any RefreshReuseJudge, expectedSuccessorHash: String,
                                 at time: Date) throws -> RefreshRotation {
        let rotated = try database.singleStatementWrite { connection in
            try SQLiteRefreshFamilies.advance(position, at: time, on: connection)
        }
        // The row after the rotation: the presented token and its successor are both views of it.
        if let rotated, let presented = try SQLiteRefreshFamilies.token(at: position.generation, of: rotated),
           let next = try SQLiteRefreshFamilies.token(at: position.generation + 1, of: rotated) {
            return .rotated(presented: presented, successor: next)
        }
        return try database.write { connection in
            guard let row = try connection.queryOne(SQLiteRefreshFamilies.select, [.text(position.grantID)]),
                  let presented = try SQLiteRefreshFamilies.token(at: position.generation, of: row) else { return .unknown }
            let stored = presented.successorHash == nil ? nil : try SQLiteRefreshFamilies.token(at: position.generation + 1, of: row)
            return try Self.judged(presented, stored: stored, judge: judge, expectedSuccessorHash: expectedSuccessorHash, at: time,
                                   on: connection)
        }
    }

    /// A token that did not rotate: the judge's outcome; on reuse the whole family dies with it
    /// (RFC 9700 §4.14.2), in the caller's transaction.
    private static func judged(_ presented: RefreshToken, stored: RefreshToken?, judge: any RefreshReuseJudge,
                               expectedSuccessorHash: String, at time: Date, on connection: any SQLConnection) throws -> RefreshRotation {
        let outcome = judge.outcome(presented: presented, storedSuccessor: stored, expectedSuccessorHash: expectedSuccessorHash, at: time)
        if case .reused = outcome {
            try SQLiteGrantStore.revoke(grantID: presented.grantID, at: time, reason: "refresh token reused", on: connection)
        }
        return outcome
    }

    /// Older tokens are marked; a one-row family dies with its grant, which is revoked here too.
    public func revokeFamily(grantID: String, at time: Date) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                _ = try connection.run("UPDATE refresh_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL",
                                       [SQLValue(date: time), .text(grantID)])
                let oneRowFamily = "SELECT 1 FROM grants WHERE grant_id = ? AND refresh_salt IS NOT NULL"
                if try connection.queryOne(oneRowFamily, [.text(grantID)]) != nil {
                    try SQLiteGrantStore.revoke(grantID: grantID, at: time, reason: "refresh-token family revoked", on: connection)
                }
            }
        }
    }

    /// Reads the tombstones `SQLiteUserStore.delete` leaves (migration 0008); a one-row family's
    /// tokens are asked for by `RefreshTokenKey.tombstone`.
    public func belongedToDeletedUser(tokenHash: String) throws(StorageError) -> Bool {
        try mapStorageErrors {
            try database.read { connection in
                try connection.queryOne("SELECT 1 FROM deleted_user_refresh_tokens WHERE token_hash = ? AND expires_at > ?",
                                        [.text(tokenHash), SQLValue(date: Date())]) != nil
            }
        }
    }

    /// One-row families count one live token each; older families their unused tokens.
    public func liveCountsBySession(userID: String, at time: Date) throws(StorageError) -> [String: Int] {
        try mapStorageErrors {
            try database.read { connection in
                let rows = try connection.query(
                    """
                    SELECT g.session_id AS session_id, COUNT(*) AS live
                    FROM refresh_tokens r JOIN grants g ON g.grant_id = r.grant_id
                    WHERE g.user_id = ?1 AND g.session_id IS NOT NULL AND g.revoked_at IS NULL
                        AND r.rotated_at IS NULL AND r.revoked_at IS NULL AND r.expires_at > ?2
                    GROUP BY g.session_id
                    UNION ALL
                    SELECT session_id, COUNT(*) AS live FROM grants
                    WHERE user_id = ?1 AND session_id IS NOT NULL AND revoked_at IS NULL AND refresh_expires_at > ?2
                    GROUP BY session_id
                    """,
                    [.text(userID), SQLValue(date: time)])
                var counts: [String: Int] = [:]
                for row in rows { counts[try row.string("session_id"), default: 0] += try row.int("live") }
                return counts
            }
        }
    }

    /// A token with a salt starts (or, rotated in from an older token, continues) a one-row family
    /// at its generation. Otherwise: a token whose value names its place is stored there (found by
    /// position, no digest index entry); any other one past its family's newest (0 for the first),
    /// found by its digest. Either way a successor lands beside the token it replaces (migration 0005).
    static func insert(_ token: RefreshToken, into connection: any SQLConnection) throws {
        if token.familySalt != nil { return try SQLiteRefreshFamilies.insert(token, into: connection) }
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

    /// The token the key names, inside the caller's transaction: a one-row family's token at its
    /// generation (its MAC is the caller's to check); else at its place, if the stored digest there
    /// is the presented one's; else by digest among the tokens found that way.
    static func find(_ key: RefreshTokenKey, on connection: any SQLConnection) throws -> RefreshToken? {
        if key.inFamilyRow, let position = key.position { return try SQLiteRefreshFamilies.token(at: position, on: connection) }
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

    /// The token the presented one was rotated to: in its one-row family (a family token's, or an
    /// older token's rotated into one), else the next generation of its family when that is found
    /// by position, else by digest (a successor issued before migration 0015).
    static func storedSuccessor(of presented: RefreshToken, on connection: any SQLConnection) throws -> RefreshToken? {
        guard let hash = presented.successorHash else { return nil }
        if let generation = presented.generation,
           hash == RefreshTokenKey.name(grantID: presented.grantID, generation: generation + 1) {
            return try SQLiteRefreshFamilies.token(at: .init(grantID: presented.grantID, generation: generation + 1), on: connection)
        }
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
