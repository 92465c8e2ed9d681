import FoundationEssentials
import Model
import SQLite

/// Pending authorizations in SQLite (migration 0002), by the digest of the cookie's id.
public struct SQLiteLoginTransactionStore: LoginTransactionStore {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func create(_ transaction: LoginTransaction) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in try Self.insert(transaction, into: connection) }
        }
    }

    /// Inserts the transaction inside the caller's transaction.
    static func insert(_ transaction: LoginTransaction, into connection: any SQLConnection) throws {
        _ = try connection.run(
            """
            INSERT INTO login_transactions (id_hash, client_id, parameters, csrf_hash, created_at, expires_at, session_id)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [.text(transaction.idHash), .text(transaction.clientID), .text(encode(transaction.parameters)), .text(transaction.csrfHash),
             SQLValue(date: transaction.createdAt), SQLValue(date: transaction.expiresAt), SQLValue(optional: transaction.sessionID)])
    }

    /// nil when unknown, or expired at `time` (expiry is exclusive: valid while `time < expiresAt`).
    public func find(idHash: String, at time: Date) throws(StorageError) -> LoginTransaction? {
        try mapStorageErrors {
            try database.read { connection in
                try connection.queryOne("SELECT * FROM login_transactions WHERE id_hash = ? AND expires_at > ?",
                                        [.text(idHash), SQLValue(date: time)]).map(Self.transaction)
            }
        }
    }

    /// Detaches the session (single use) and keeps the row until it expires, so the same sealed
    /// transaction cannot sign in again meanwhile (`SignInStore.completeLogin` finds it taken).
    public func consume(idHash: String) throws(StorageError) -> Bool {
        try mapStorageErrors {
            try database.write { connection in
                try connection.run("UPDATE login_transactions SET session_id = NULL WHERE id_hash = ? AND session_id IS NOT NULL",
                                   [.text(idHash)]) == 1
            }
        }
    }

    /// Deletes transactions expired at `time`; returns how many. For periodic maintenance.
    @discardableResult
    public func purgeExpired(at time: Date) throws(StorageError) -> Int {
        try mapStorageErrors {
            try database.write { connection in
                try connection.run("DELETE FROM login_transactions WHERE expires_at <= ?", [SQLValue(date: time)])
            }
        }
    }

    private static func encode(_ parameters: [String: String]) -> String {
        StringMapJSON.encode(parameters)
    }

    private static func transaction(_ row: Row) throws -> LoginTransaction {
        let text = try row.string("parameters")
        guard let parameters = StringMapJSON.decode(text) else {
            throw StorageError.internal("login transaction parameters are not a JSON object of strings")
        }
        return LoginTransaction(idHash: try row.string("id_hash"), clientID: try row.string("client_id"), parameters: parameters,
                                csrfHash: try row.string("csrf_hash"), createdAt: try row.date("created_at"),
                                expiresAt: try row.date("expires_at"), sessionID: try row.optionalString("session_id"))
    }
}
