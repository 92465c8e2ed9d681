import Model
import SQLite

/// A refresh token, its grant, user and session in one read transaction: the refresh grant's
/// lookups cost one snapshot (one set of file locks) instead of four. It runs on a reader: the
/// writer's warm page cache is tempting, but queueing every refresh twice on the write lock
/// measured slower.
public struct SQLiteRefreshTokenFamilyReader: RefreshTokenFamilyReader {
    let database: Database

    public init(store: Store) { database = store.database }

    public func family(tokenHash: String) throws(StorageError) -> RefreshTokenFamily? {
        try mapStorageErrors {
            try database.read { connection in
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
