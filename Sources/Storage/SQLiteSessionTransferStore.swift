import FoundationEssentials
import Model
import SQLite

/// Session transfer tokens in SQLite, by the digest of their value (migration 0014). Redemption is
/// one `BEGIN IMMEDIATE` transaction whose conditional UPDATE decides the single winner; the
/// session a redemption starts is inserted only while its parent grant is live, in one transaction,
/// and the grants trigger of migration 0014 ends it when that grant is revoked later.
public struct SQLiteSessionTransferStore: SessionTransferStore {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func insert(_ token: SessionTransferToken) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                _ = try connection.run(
                    """
                    INSERT INTO session_transfer_tokens (token_hash, user_id, client_id, grant_id, ip, issued_at, expires_at, consumed_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [.text(token.tokenHash), .text(token.userID), .text(token.clientID), .text(token.grantID), SQLValue(optional: token.ip),
                     SQLValue(date: token.issuedAt), SQLValue(date: token.expiresAt), SQLValue(optionalDate: token.consumedAt)])
            }
        }
    }

    /// Any presentation consumes the token, an expired one included, so it never counts twice.
    public func redeem(tokenHash: String, at time: Date) throws(StorageError) -> SessionTransferRedemption {
        try mapStorageErrors {
            try database.write { connection in
                let changed = try connection.run(
                    "UPDATE session_transfer_tokens SET consumed_at = ? WHERE token_hash = ? AND consumed_at IS NULL",
                    [SQLValue(date: time), .text(tokenHash)])
                guard let row = try connection.queryOne("SELECT * FROM session_transfer_tokens WHERE token_hash = ?", [.text(tokenHash)]) else {
                    return .unknown
                }
                let token = try Self.token(row)
                guard changed == 1 else { return .reused(token) }
                return time < token.expiresAt ? .redeemed(token) : .expired(token)
            }
        }
    }

    public func startSession(_ session: Session) throws(StorageError) -> Bool {
        guard let parent = session.parentGrantID else { throw StorageError.internal("a transferred session needs its parent grant") }
        return try mapStorageErrors {
            try database.write { connection in
                guard try connection.queryOne("SELECT 1 FROM grants WHERE grant_id = ? AND revoked_at IS NULL", [.text(parent)]) != nil else {
                    return false
                }
                try SQLiteSessionStore.insert(session, into: connection)
                return true
            }
        }
    }

    private static func token(_ row: Row) throws -> SessionTransferToken {
        SessionTransferToken(tokenHash: try row.string("token_hash"), userID: try row.string("user_id"), clientID: try row.string("client_id"),
                             grantID: try row.string("grant_id"), ip: try row.optionalString("ip"), issuedAt: try row.date("issued_at"),
                             expiresAt: try row.date("expires_at"), consumedAt: try row.optionalDate("consumed_at"))
    }
}
