import Model
import SQLite

/// A refresh token, its grant, user and (when asked for) session in one go (`lookups`): on SQLite one read
/// transaction (one set of file locks instead of four), on PostgreSQL three statements (a one-row
/// family is its grant's row) and no BEGIN/COMMIT. No snapshot is needed: each row is at
/// least as new as the request, and the rotation's conditional UPDATE re-checks the generation and
/// the grant. It runs on a reader: the writer's warm page cache is tempting, but queueing every
/// refresh twice on the write lock measured slower.
public struct SQLiteRefreshTokenFamilyReader: RefreshTokenFamilyReader {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func family(_ key: RefreshTokenKey, includingSession: Bool) throws(StorageError) -> RefreshTokenFamily? {
        try mapStorageErrors {
            try database.lookups { connection in
                let token: RefreshToken
                let grant: Grant?
                if key.inFamilyRow, let position = key.position {
                    // A one-row family is its grant's row.
                    guard let row = try connection.queryOne(SQLiteRefreshFamilies.select, [.text(position.grantID)]),
                          let found = try SQLiteRefreshFamilies.token(at: position.generation, of: row) else { return nil }
                    token = found
                    grant = try SQLiteGrantStore.grant(row)
                } else {
                    guard let found = try SQLiteRefreshTokenStore.find(key, on: connection) else { return nil }
                    token = found
                    grant = try SQLiteGrantStore.find(grantID: token.grantID, on: connection)
                }
                let user = try SQLiteUserStore.find(userID: token.userID, on: connection)
                let session = includingSession
                    ? try grant?.sessionID.flatMap { try SQLiteSessionStore.find(sessionID: $0, on: connection) } : nil
                return RefreshTokenFamily(token: token, grant: grant, user: user, session: session)
            }
        }
    }
}
