import FoundationEssentials
import Model
import SQLite

/// Grants on any SQL backend. Revoking one also revokes its refresh tokens in the same transaction.
public struct SQLiteGrantStore: GrantStore {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func create(_ grant: Grant) throws(StorageError) {
        try mapStorageErrors {
            try database.singleStatementWrite { connection in
                _ = try connection.run(
                    """
                    INSERT INTO grants (grant_id, client_id, user_id, session_id, scope, audience, auth_time, created_at,
                        revoked_at, revoke_reason)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [.text(grant.grantID), .text(grant.clientID), SQLValue(optional: grant.userID), SQLValue(optional: grant.sessionID),
                     .text(grant.scope), SQLValue(optional: grant.audience), SQLValue(optionalDate: grant.authTime),
                     SQLValue(date: grant.createdAt), SQLValue(optionalDate: grant.revokedAt), SQLValue(optional: grant.revokeReason)])
            }
        }
    }

    public func find(grantID: String) throws(StorageError) -> Grant? {
        try mapStorageErrors {
            try database.lookups { connection in
                try Self.find(grantID: grantID, on: connection)
            }
        }
    }

    /// Idempotent: a revoked grant keeps its first time and reason; its refresh tokens that are
    /// not yet revoked are marked revoked at `time`. Throws `.notFound` for an unknown id.
    public func revoke(grantID: String, at time: Date, reason: String) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                guard try connection.queryOne("SELECT 1 FROM grants WHERE grant_id = ?", [.text(grantID)]) != nil else {
                    throw StorageError.notFound("grant \(grantID)")
                }
                try Self.revoke(grantID: grantID, at: time, reason: reason, on: connection)
            }
        }
    }

    /// One statement: the revocation is remembered until the token's own expiry, and a second one
    /// changes nothing (migration 0020's table, whose purge rule drops the row after `expiresAt`).
    public func revokeMachineGrant(grantID: String, until expiresAt: Date) throws(StorageError) -> Bool {
        try mapStorageErrors {
            try database.singleStatementWrite { connection in
                try connection.run("INSERT INTO revoked_grants (grant_id, expires_at) VALUES (?, ?) ON CONFLICT (grant_id) DO NOTHING",
                                   [.text(grantID), SQLValue(date: expiresAt)]) == 1
            }
        }
    }

    public func isMachineGrantRevoked(grantID: String) throws(StorageError) -> Bool {
        try mapStorageErrors {
            try database.lookups { connection in
                try connection.queryOne("SELECT 1 FROM revoked_grants WHERE grant_id = ?", [.text(grantID)]) != nil
            }
        }
    }

    /// Revokes the grant (keeping an earlier revocation's time and reason) and every refresh token
    /// of it, inside the caller's transaction.
    static func revoke(grantID: String, at time: Date, reason: String, on connection: any SQLConnection) throws {
        _ = try connection.run("UPDATE grants SET revoked_at = ?, revoke_reason = ? WHERE grant_id = ? AND revoked_at IS NULL",
                               [SQLValue(date: time), .text(reason), .text(grantID)])
        _ = try connection.run("UPDATE refresh_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL",
                               [SQLValue(date: time), .text(grantID)])
    }

    /// The grant by id, inside the caller's transaction.
    static func find(grantID: String, on connection: any SQLConnection) throws -> Grant? {
        try connection.queryOne(selectByID, [.text(grantID)]).map(grant)
    }

    /// A grant's own columns: not its refresh-token family's (`SQLiteRefreshFamilies`), which
    /// `/userinfo` and the other readers of a bare grant would only decode and drop.
    static let columns = "grant_id, client_id, user_id, session_id, scope, audience, auth_time, created_at, revoked_at, revoke_reason"
    static let selectByID = "SELECT \(columns) FROM grants WHERE grant_id = ?"

    /// A `grants` row (or any row with its columns).
    static func grant(_ row: Row) throws -> Grant {
        Grant(grantID: try row.string("grant_id"), clientID: try row.string("client_id"), userID: try row.optionalString("user_id"),
              sessionID: try row.optionalString("session_id"), scope: try row.string("scope"),
              audience: try row.optionalString("audience"), authTime: try row.optionalDate("auth_time"),
              createdAt: try row.date("created_at"), revokedAt: try row.optionalDate("revoked_at"),
              revokeReason: try row.optionalString("revoke_reason"))
    }
}
