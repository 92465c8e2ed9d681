import Model
import SQLite

/// A refresh token, its grant, user and session in one read transaction: the refresh grant's
/// lookups cost one snapshot instead of four. It runs on the writer connection, whose page cache
/// still holds the rows it wrote at the last rotation (a reader's is dropped after every commit).
public struct SQLiteRefreshTokenFamilyReader: RefreshTokenFamilyReader {
    let database: Database

    public init(store: Store) { database = store.database }

    public func family(tokenHash: String) throws(StorageError) -> RefreshTokenFamily? {
        try mapStorageErrors {
            try database.readOnWriter { connection in
                guard let token = try connection.queryOne("SELECT * FROM refresh_tokens WHERE token_hash = ?", [.text(tokenHash)])
                    .map(SQLiteRefreshTokenStore.token) else { return nil }
                let grant = try connection.queryOne("SELECT * FROM grants WHERE grant_id = ?", [.text(token.grantID)])
                    .map(SQLiteGrantStore.grant)
                let user = try connection.queryOne("SELECT * FROM users WHERE user_id = ?", [.text(token.userID)])
                    .map(SQLiteUserStore.user)
                let session = try grant?.sessionID.flatMap { sessionID in
                    try connection.queryOne("SELECT * FROM sessions WHERE session_id = ?", [.text(sessionID)])
                        .map(SQLiteSessionStore.session)
                }
                return RefreshTokenFamily(token: token, grant: grant, user: user, session: session)
            }
        }
    }
}
