import FoundationEssentials
import Model
import SQLite

/// Password changes and address confirmations, each one transaction.
public struct SQLiteAccountStore: AccountStore {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func changePassword(_ change: PasswordChange) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                guard let old = try connection.queryOne("SELECT password_hash FROM users WHERE user_id = ?", [.text(change.userID)]) else {
                    throw StorageError.notFound("user \(change.userID)")
                }
                if change.historySize > 0, let oldHash = try old.optionalString("password_hash") {
                    _ = try connection.run("INSERT INTO password_history (user_id, created_at, hash) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
                                           [.text(change.userID), SQLValue(date: change.time), .text(oldHash)])
                    // Keep the newest `historySize`: everything older than the oldest kept entry goes.
                    _ = try connection.run(
                        """
                        DELETE FROM password_history WHERE user_id = ?1 AND created_at < coalesce((SELECT created_at FROM password_history
                            WHERE user_id = ?1 ORDER BY created_at DESC LIMIT 1 OFFSET ?2 - 1), 0)
                        """, [.text(change.userID), .integer(Int64(change.historySize))])
                }
                _ = try connection.run(
                    """
                    UPDATE users SET password_hash = ?2, updated_at = ?3, email_verified = CASE WHEN ?4 = 1 THEN 1 ELSE email_verified END WHERE user_id = ?1
                    """, [.text(change.userID), .text(change.newHash), SQLValue(date: change.time), SQLValue(flag: change.verifiesEmail)])
                if change.revokesAccess {
                    try SessionRevocation.revokeUser(change.userID, at: change.time, reason: "password_reset", on: connection)
                }
            }
        }
    }

    public func markEmailVerified(userID: String, at time: Date) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                guard try connection.run("UPDATE users SET email_verified = 1, updated_at = ?2 WHERE user_id = ?1",
                                         [.text(userID), SQLValue(date: time)]) == 1 else {
                    throw StorageError.notFound("user \(userID)")
                }
            }
        }
    }

    public func recent(userID: String, limit: Int) throws(StorageError) -> [String] {
        try mapStorageErrors {
            try database.read { connection in
                try connection.query("SELECT hash FROM password_history WHERE user_id = ?1 ORDER BY created_at DESC LIMIT ?2",
                                     [.text(userID), .integer(Int64(limit))]).map { try $0.string("hash") }
            }
        }
    }
}
