import Model
import SQLite

/// A grant and its user in one read transaction (see `GrantHolderReader`).
public struct SQLiteGrantHolderReader: GrantHolderReader {
    let database: Database

    public init(store: Store) { database = store.database }

    public func grantAndUser(grantID: String, userID: String) throws(StorageError) -> (grant: Grant?, user: User?) {
        try mapStorageErrors {
            try database.read { connection in
                (try SQLiteGrantStore.find(grantID: grantID, on: connection), try SQLiteUserStore.find(userID: userID, on: connection))
            }
        }
    }
}
