import FoundationEssentials
import Model
import SQLite

/// Authorization codes in SQLite, by the digest of their value. Redemption is one
/// `BEGIN IMMEDIATE` transaction whose conditional UPDATE decides the single winner.
public struct SQLiteAuthorizationCodeStore: AuthorizationCodeStore {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func insert(_ code: AuthorizationCode) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                _ = try connection.run(
                    """
                    INSERT INTO authorization_codes (code_hash, client_id, user_id, session_id, redirect_uri, scope, audience, nonce,
                        code_challenge, code_challenge_method, auth_time, created_at, expires_at, used_at, grant_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [.text(code.codeHash), .text(code.clientID), .text(code.userID), SQLValue(optional: code.sessionID),
                     .text(code.redirectURI), .text(code.scope), SQLValue(optional: code.audience), SQLValue(optional: code.nonce),
                     SQLValue(optional: code.codeChallenge), SQLValue(optional: code.codeChallengeMethod),
                     SQLValue(date: code.authTime), SQLValue(date: code.createdAt), SQLValue(date: code.expiresAt),
                     SQLValue(optionalDate: code.usedAt), SQLValue(optional: code.grantID)])
            }
        }
    }

    /// Marks the code used at `time` if nobody has; expiry is the caller's check (`expiresAt` is returned).
    public func redeem(codeHash: String, at time: Date) throws(StorageError) -> CodeRedemption {
        try mapStorageErrors {
            try database.write { connection in
                let changed = try connection.run(
                    "UPDATE authorization_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL",
                    [SQLValue(date: time), .text(codeHash)])
                guard let row = try connection.queryOne("SELECT * FROM authorization_codes WHERE code_hash = ?", [.text(codeHash)]) else {
                    return .unknown
                }
                let code = try Self.code(row)
                return changed == 1 ? .redeemed(code) : .replayed(code)
            }
        }
    }

    public func attachGrant(codeHash: String, grantID: String) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                let changed = try connection.run("UPDATE authorization_codes SET grant_id = ? WHERE code_hash = ?",
                                                 [.text(grantID), .text(codeHash)])
                guard changed == 1 else { throw StorageError.notFound("authorization code") }
            }
        }
    }

    private static func code(_ row: Row) throws -> AuthorizationCode {
        AuthorizationCode(
            codeHash: try row.string("code_hash"), clientID: try row.string("client_id"), userID: try row.string("user_id"),
            sessionID: try row.optionalString("session_id"), redirectURI: try row.string("redirect_uri"),
            scope: try row.string("scope"), audience: try row.optionalString("audience"), nonce: try row.optionalString("nonce"),
            codeChallenge: try row.optionalString("code_challenge"),
            codeChallengeMethod: try row.optionalString("code_challenge_method"),
            authTime: try row.date("auth_time"), createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"),
            usedAt: try row.optionalDate("used_at"), grantID: try row.optionalString("grant_id"))
    }
}
