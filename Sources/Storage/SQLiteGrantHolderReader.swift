import Model
import SQLite

/// A grant and its user in one read transaction (see `GrantHolderReader`).
public struct SQLiteGrantHolderReader: GrantHolderReader {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func grantAndUser(grantID: String, userID: String) throws(StorageError) -> (grant: Grant?, user: User?) {
        try mapStorageErrors {
            try database.read { connection in
                (try SQLiteGrantStore.find(grantID: grantID, on: connection), try SQLiteUserStore.find(userID: userID, on: connection))
            }
        }
    }
}
