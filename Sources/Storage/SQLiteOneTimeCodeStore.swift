import FoundationEssentials
import Model
import SQLite

/// One-time codes in SQLite, one row per purpose and address; every try is one write transaction,
/// so concurrent tries of one code are counted exactly and only one can consume it.
public struct SQLiteOneTimeCodeStore: OneTimeCodeStore {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func issue(_ code: OneTimeCode) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                _ = try connection.run(
                    """
                    INSERT INTO one_time_codes (purpose, email_key, code_hash, link_hash, client_id, attempts, created_at, expires_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                    ON CONFLICT (purpose, email_key) DO UPDATE SET code_hash = ?3, link_hash = ?4, client_id = ?5, attempts = ?6,
                        created_at = ?7, expires_at = ?8
                    """,
                    [.text(code.purpose.rawValue), .text(code.emailKey), .text(code.codeHash), SQLValue(optional: code.linkHash),
                     SQLValue(optional: code.clientID), .integer(Int64(code.attempts)), SQLValue(date: code.createdAt),
                     SQLValue(date: code.expiresAt)])
            }
        }
    }

    public func attempt(_ purpose: OneTimeCode.Purpose, emailKey: String, codeHash: String, maxAttempts: Int,
                        at time: Date) throws(StorageError) -> CodeAttempt {
        try mapStorageErrors {
            try database.write { connection in
                guard let code = try Self.live(purpose, emailKey: emailKey, at: time, on: connection) else { return .none }
                let key: [SQLValue] = [.text(purpose.rawValue), .text(emailKey)]
                if code.codeHash.utf8.elementsEqual(codeHash.utf8) {
                    _ = try connection.run("DELETE FROM one_time_codes WHERE purpose = ?1 AND email_key = ?2", key)
                    return .accepted(code)
                }
                let attempts = code.attempts + 1
                if attempts >= maxAttempts {
                    _ = try connection.run("DELETE FROM one_time_codes WHERE purpose = ?1 AND email_key = ?2", key)
                    return .exhausted
                }
                _ = try connection.run("UPDATE one_time_codes SET attempts = ?3 WHERE purpose = ?1 AND email_key = ?2",
                                       key + [.integer(Int64(attempts))])
                return .wrong(remaining: maxAttempts - attempts)
            }
        }
    }

    public func redeemLink(linkHash: String, at time: Date) throws(StorageError) -> OneTimeCode? {
        try mapStorageErrors {
            try database.write { connection in
                guard let row = try connection.queryOne("SELECT * FROM one_time_codes WHERE link_hash = ?1 AND expires_at > ?2",
                                                        [.text(linkHash), SQLValue(date: time)]) else { return nil }
                let code = try Self.code(row)
                _ = try connection.run("DELETE FROM one_time_codes WHERE purpose = ?1 AND email_key = ?2",
                                       [.text(code.purpose.rawValue), .text(code.emailKey)])
                return code
            }
        }
    }

    public func findLink(linkHash: String, at time: Date) throws(StorageError) -> OneTimeCode? {
        try mapStorageErrors {
            try database.read { connection in
                try connection.queryOne("SELECT * FROM one_time_codes WHERE link_hash = ?1 AND expires_at > ?2",
                                        [.text(linkHash), SQLValue(date: time)]).map(Self.code)
            }
        }
    }

    public func find(_ purpose: OneTimeCode.Purpose, emailKey: String, at time: Date) throws(StorageError) -> OneTimeCode? {
        try mapStorageErrors {
            try database.read { connection in try Self.live(purpose, emailKey: emailKey, at: time, on: connection) }
        }
    }

    private static func live(_ purpose: OneTimeCode.Purpose, emailKey: String, at time: Date, on connection: any SQLConnection) throws -> OneTimeCode? {
        try connection.queryOne("SELECT * FROM one_time_codes WHERE purpose = ?1 AND email_key = ?2 AND expires_at > ?3",
                                [.text(purpose.rawValue), .text(emailKey), SQLValue(date: time)]).map(code)
    }

    private static func code(_ row: Row) throws -> OneTimeCode {
        guard let purpose = OneTimeCode.Purpose(rawValue: try row.string("purpose")) else {
            throw StorageError.internal("one-time code with an unknown purpose")
        }
        return OneTimeCode(purpose: purpose, emailKey: try row.string("email_key"), codeHash: try row.string("code_hash"),
                           linkHash: try row.optionalString("link_hash"), clientID: try row.optionalString("client_id"),
                           attempts: try row.int("attempts"), createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"))
    }
}
