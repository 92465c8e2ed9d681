import FoundationEssentials
import Model
import SQLite

/// Upstream refresh tokens and relay-email state on `identities` (migration 0013), the token sealed
/// by `UpstreamTokenSeal` bound to the identity.
public struct SQLiteUpstreamTokenStore: UpstreamTokenStore {
    let database: any SQLDatabase
    let seal: UpstreamTokenSeal

    /// - Parameter key: 32 bytes, derived under `UpstreamTokenKey.purpose`.
    public init(store: some SQLStorage, key: [UInt8]) {
        database = store.records.sql
        seal = UpstreamTokenSeal(key: key)
    }

    public func setRefreshToken(_ token: UpstreamRefreshToken, connection: String, subject: String, at time: Date) throws(StorageError) {
        let sealed = try seal.seal(token.token, boundTo: UpstreamTokenSeal.identityBinding(connection: connection, subject: subject))
        try update("sealed_refresh_token = ?3, refresh_token_client_id = ?4, updated_at = ?5",
                   [.text(connection), .text(subject), .blob(sealed), .text(token.clientID), SQLValue(date: time)])
    }

    public func refreshToken(connection: String, subject: String) throws(StorageError) -> UpstreamRefreshToken? {
        let row = try mapStorageErrors {
            try database.read { db in
                try db.queryOne("SELECT sealed_refresh_token, refresh_token_client_id FROM identities WHERE connection = ?1 AND subject = ?2",
                                [.text(connection), .text(subject)])
            }
        }
        guard let row, try mapStorageErrors({ !(try row.isNull("sealed_refresh_token")) }) else { return nil }
        let (sealed, clientID) = try mapStorageErrors { (try row.blob("sealed_refresh_token"), try row.string("refresh_token_client_id")) }
        guard let token = seal.open(sealed, boundTo: UpstreamTokenSeal.identityBinding(connection: connection, subject: subject)) else {
            throw .internal("the refresh token of identity \(connection)/\(subject) cannot be opened (another key-encryption key?)")
        }
        return UpstreamRefreshToken(token: token, clientID: clientID)
    }

    public func clearRefreshToken(connection: String, subject: String) throws(StorageError) {
        try update("sealed_refresh_token = NULL, refresh_token_client_id = NULL", [.text(connection), .text(subject)])
    }

    public func setEmailForwarding(_ enabled: Bool, connection: String, subject: String, at time: Date) throws(StorageError) {
        try update("email_forwarding = ?3, updated_at = ?4", [.text(connection), .text(subject), .text(enabled ? "enabled" : "disabled"),
                                                              SQLValue(date: time)])
    }

    /// What Apple last said of the identity's relay email: true enabled, false disabled, nil never told.
    public func emailForwarding(connection: String, subject: String) throws(StorageError) -> Bool? {
        try mapStorageErrors {
            try database.read { db in
                let row = try db.queryOne("SELECT email_forwarding FROM identities WHERE connection = ?1 AND subject = ?2",
                                          [.text(connection), .text(subject)])
                return try row?.optionalString("email_forwarding").map { $0 == "enabled" }
            }
        }
    }

    private func update(_ assignments: String, _ values: [SQLValue]) throws(StorageError) {
        try mapStorageErrors {
            try database.write { db in
                let changed = try db.run("UPDATE identities SET \(assignments) WHERE connection = ?1 AND subject = ?2", values)
                guard changed == 1 else { throw StorageError.notFound("identity") }
            }
        }
    }
}
