import Crypto
import FoundationEssentials
import Model
import SQLite

/// Deletes an account and what is theirs in one write transaction (README "Account deletion"):
/// queues the revocation of each stored Apple refresh token (`SQLiteUpstreamRevocationQueue`),
/// remembers their live refresh tokens (digests, or a family's tombstone key, so a refresh says the user is gone), deletes
/// the user row — foreign keys take sessions, grants, refresh tokens, codes, identities and password
/// history with it —, their one-time codes and queued mail, and rewrites their audit events to a
/// pseudonymous id with no email, so the audit trail keeps what happened but not to whom.
public struct SQLiteAccountDeletion: AccountDeleter {
    let database: any SQLDatabase
    let seal: UpstreamTokenSeal
    private let pseudonymKey: [UInt8]

    /// - Parameters:
    ///   - tokenKey: derived under `UpstreamTokenKey.purpose`.
    ///   - pseudonymKey: derived under `AuditPseudonymKey.purpose`.
    public init(store: some SQLStorage, tokenKey: [UInt8], pseudonymKey: [UInt8]) {
        database = store.records.sql
        seal = UpstreamTokenSeal(key: tokenKey)
        self.pseudonymKey = pseudonymKey
    }

    /// `deleted|` and 32 hex digits of HMAC-SHA256 under a key derived from the key-encryption key:
    /// the same user id always gives the same pseudonym (events stay grouped), and no one without
    /// the key can tell whose it is.
    public static func pseudonym(userID: String, key: [UInt8]) -> String {
        "deleted|" + Hex.encode(Array(HMAC.sha256(key: key, data: Array(userID.utf8)).prefix(16)))
    }

    public func deleteAccount(userID: String, at time: Date) throws(StorageError) -> DeletedAccount {
        try deleteAccountTimed(userID: userID, at: time).deleted
    }

    /// `deleteAccount`, with how long each write transaction held the lock: the user's refresh
    /// tokens go first in short batches (`SQLiteUserStore.deleteRefreshTokensInBatches`), so a
    /// user with very many never stalls other writers; everything else in one transaction.
    public func deleteAccountTimed(userID: String, at time: Date) throws(StorageError) -> (deleted: DeletedAccount, holds: WriteHolds) {
        let pseudonym = Self.pseudonym(userID: userID, key: pseudonymKey)
        let now = Int64(time.timeIntervalSince1970.rounded(.down))
        var holds = WriteHolds()
        let deleted = try mapStorageErrors {
            guard try database.read({ try $0.queryOne("SELECT 1 FROM users WHERE user_id = ?", [.text(userID)]) }) != nil else {
                throw StorageError.notFound("user \(userID)")
            }
            let liveGrantsDeleted = try SQLiteUserStore.deleteRefreshTokensInBatches(userID: userID, now: now, database: database,
                                                                                     holds: &holds)
            try ColdPages.warmUser(userID, pseudonym: pseudonym, in: database)
            let (result, held) = try database.timedWrite { db in
                guard let user = try SQLiteUserStore.find(userID: userID, on: db) else { throw StorageError.notFound("user \(userID)") }
                let identities = try db.query(
                    """
                    SELECT i.connection, i.subject, i.sealed_refresh_token, i.refresh_token_client_id, c.strategy
                    FROM identities i JOIN connections c ON c.name = i.connection WHERE i.user_id = ?1
                    """, [.text(userID)])
                var queued = 0
                for row in identities where try row.string("strategy") == ConnectionStrategy.apple.rawValue && !(try row.isNull("sealed_refresh_token")) {
                    let connection = try row.string("connection")
                    let binding = UpstreamTokenSeal.identityBinding(connection: connection, subject: try row.string("subject"))
                    // A token sealed under another key cannot be revoked by anyone: nothing to queue.
                    guard let token = seal.open(try row.blob("sealed_refresh_token"), boundTo: binding) else { continue }
                    try SQLiteUpstreamRevocationQueue.insert(token: token, connection: connection, clientID: try row.string("refresh_token_client_id"),
                                                             at: now, seal: seal, on: db)
                    queued += 1
                }
                let sessions = try db.queryOne("SELECT count(*) FROM sessions WHERE user_id = ?1 AND ended_at IS NULL", [.text(userID)])?.int(0) ?? 0
                let grants = liveGrantsDeleted
                    + (try db.queryOne("SELECT count(*) FROM grants WHERE user_id = ?1 AND revoked_at IS NULL", [.text(userID)])?.int(0) ?? 0)
                // Tokens rotated in since the batches: their digests, so a refresh says the user is gone.
                _ = try db.run("DELETE FROM deleted_user_refresh_tokens WHERE expires_at <= ?", [.integer(now)])
                try SQLiteUserStore.rememberRemainingTokens(userID: userID, now: now, on: db)
                // Keyed by address, not by user: only the database connection's user owns the address's codes.
                if user.connection == nil {
                    _ = try db.run("DELETE FROM one_time_codes WHERE email_key = ?1", [.text(User.emailKey(user.email))])
                    _ = try db.run("DELETE FROM mail_outbox WHERE lower(recipient) = ?1", [.text(User.emailKey(user.email))])
                }
                _ = try db.run(
                    "UPDATE audit_events SET user_id = ?2, details = \(db.dialect.jsonRemovingKey("details", key: "email")) WHERE user_id = ?1",
                    [.text(userID), .text(pseudonym)])
                _ = try db.run("DELETE FROM users WHERE user_id = ?1", [.text(userID)])
                return DeletedAccount(pseudonym: pseudonym, revocationsQueued: queued, identities: identities.count, sessions: sessions, grants: grants)
            }
            holds.record(held)
            return result
        }
        return (deleted, holds)
    }
}

/// The one label the daemon and `idp-admin` derive the audit pseudonym key under.
public enum AuditPseudonymKey {
    public static let purpose = "gatehouse audit pseudonym v1"
}
