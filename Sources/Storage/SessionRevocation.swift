import FoundationEssentials
import Model
import SQLite

/// Ends sessions and revokes their token families, each call in one transaction: grants are marked
/// revoked (so their access tokens fail validation through `grant_id`) and their refresh tokens revoked.
public struct SessionRevocation: Sendable {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

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

    /// Inside the caller's transaction: ends every live session of the user and revokes all their
    /// grants, whichever session or grant issued them (a password reset).
    static func revokeUser(_ userID: String, at time: Date, reason: String, on connection: any SQLConnection) throws {
        _ = try connection.run("UPDATE sessions SET ended_at = ? WHERE user_id = ? AND ended_at IS NULL", [SQLValue(date: time), .text(userID)])
        _ = try revokeGrants(where: "user_id = ?", [.text(userID)], at: time, reason: reason, in: connection)
    }

    /// `condition` is a fixed SQL fragment over `grants` with `?` placeholders for `bindings`.
    private static func revokeGrants(where condition: String, _ bindings: [SQLValue], at time: Date, reason: String,
                                     in connection: any SQLConnection) throws -> Int {
        _ = try connection.run(
            "UPDATE refresh_tokens SET revoked_at = ? WHERE revoked_at IS NULL AND grant_id IN (SELECT grant_id FROM grants WHERE \(condition))",
            [SQLValue(date: time)] + bindings)
        return try connection.run("UPDATE grants SET revoked_at = ?, revoke_reason = ? WHERE revoked_at IS NULL AND \(condition)",
                                  [SQLValue(date: time), .text(reason)] + bindings)
    }
}
