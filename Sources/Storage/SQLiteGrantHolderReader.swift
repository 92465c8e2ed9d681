import Model
import SQLite

/// A grant and its user in one go (`lookups`: one read transaction on SQLite, two bare statements
/// on PostgreSQL; each is checked on its own, so no common snapshot is needed). See `GrantHolderReader`.
public struct SQLiteGrantHolderReader: GrantHolderReader {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func grantAndUser(grantID: String, userID: String) throws(StorageError) -> (grant: Grant?, user: User?) {
        try mapStorageErrors {
            try database.lookups { connection in
                (try SQLiteGrantStore.find(grantID: grantID, on: connection), try SQLiteUserStore.find(userID: userID, on: connection))
            }
        }
    }

    /// Two small lookups (a revoked grant's row, the application's) in one statement, then the user.
    public func userOfLiveGrant(grantID: String, clientID: String, userID: String) throws(StorageError) -> (grantLive: Bool, user: User?) {
        try mapStorageErrors {
            try database.lookups { connection in
                let row = try connection.queryOne(Self.grantState, [.text(grantID), .text(clientID)])
                let live = try row.map { try $0.isNull("revoked") && !$0.isNull("application") } ?? false
                return (live, live ? try SQLiteUserStore.find(userID: userID, on: connection) : nil)
            }
        }
    }

    static let grantState = """
        SELECT (SELECT 1 FROM revoked_grants WHERE grant_id = ?1) AS revoked,
               (SELECT 1 FROM clients WHERE client_id = ?2) AS application
        """
}
