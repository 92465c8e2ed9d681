import Model
import SQLite

/// A grant and its user in one read transaction (see `GrantHolderReader`).
public struct SQLiteGrantHolderReader: GrantHolderReader {
    let database: Database

    public init(store: Store) { database = store.database }

    public func grantAndUser(grantID: String, userID: String) throws(StorageError) -> (grant: Grant?, user: User?) {
        try mapStorageErrors {
            try database.read { connection in
                let grant = try connection.queryOne("SELECT * FROM grants WHERE grant_id = ?", [.text(grantID)])
                    .map(SQLiteGrantStore.grant)
                let user = try connection.queryOne("SELECT * FROM users WHERE user_id = ?", [.text(userID)])
                    .map(SQLiteUserStore.user)
                return (grant, user)
            }
        }
    }
}
