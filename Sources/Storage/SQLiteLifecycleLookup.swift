import Foundation
import Model
import SQLite

/// Read-only lookups for revocation, introspection and logout: a refresh token by its hash
/// (table `refresh_tokens`, written by the refresh grant) and the live grants of a session.
public struct SQLiteLifecycleLookup: LifecycleLookup {
    let database: Database

    public init(store: Store) { database = store.database }

    public func refreshToken(hash tokenHash: String) throws(StorageError) -> RefreshTokenSnapshot? {
        try mapStorageErrors {
            try database.read { connection in
                try connection.queryOne("SELECT * FROM refresh_tokens WHERE token_hash = ?", [.text(tokenHash)]).map { row in
                    RefreshTokenSnapshot(grantID: try row.string("grant_id"), clientID: try row.string("client_id"),
                                         userID: try row.string("user_id"), scope: try row.string("scope"),
                                         issuedAt: try row.date("issued_at"), expiresAt: try row.date("expires_at"),
                                         lastUsedAt: try row.date("last_used_at"), rotatedAt: try row.optionalDate("rotated_at"),
                                         revokedAt: try row.optionalDate("revoked_at"))
                }
            }
        }
    }

    public func liveGrants(sessionID: String) throws(StorageError) -> [Grant] {
        try mapStorageErrors {
            try database.read { connection in
                try connection.query("SELECT * FROM grants WHERE session_id = ? AND revoked_at IS NULL ORDER BY created_at, grant_id",
                                     [.text(sessionID)]).map { row in
                    Grant(grantID: try row.string("grant_id"), clientID: try row.string("client_id"),
                          userID: try row.optionalString("user_id"), sessionID: try row.optionalString("session_id"),
                          scope: try row.string("scope"), audience: try row.optionalString("audience"),
                          authTime: try row.optionalDate("auth_time"), createdAt: try row.date("created_at"))
                }
            }
        }
    }
}
