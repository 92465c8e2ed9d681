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
}
