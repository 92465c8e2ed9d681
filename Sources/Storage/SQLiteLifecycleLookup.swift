import FoundationEssentials
import Model
import SQLite

/// Read-only lookups for revocation, introspection and logout: a refresh token by its hash
/// (table `refresh_tokens`, written by the refresh grant) and the live grants of a session.
public struct SQLiteLifecycleLookup: LifecycleLookup {
    let database: any SQLDatabase
    let refreshTokens: SQLiteRefreshTokenStore

    public init(store: some SQLStorage) {
        database = store.records.sql
        refreshTokens = SQLiteRefreshTokenStore(store: store)
    }

    public func refreshToken(_ key: RefreshTokenKey) throws(StorageError) -> RefreshToken? {
        try refreshTokens.find(key)
    }

    static let liveGrantsOfSession = """
        SELECT \(SQLiteGrantStore.columns) FROM grants WHERE session_id = ? AND revoked_at IS NULL ORDER BY created_at, grant_id
        """

    public func liveGrants(sessionID: String) throws(StorageError) -> [Grant] {
        try mapStorageErrors {
            try database.read { connection in
                try connection.query(Self.liveGrantsOfSession, [.text(sessionID)]).map(SQLiteGrantStore.grant)
            }
        }
    }
}
