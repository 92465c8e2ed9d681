import FoundationEssentials

/// A short code sent by email that proves the reader owns the address: to confirm it after signup,
/// to reset a password, or to sign in without one. One live code per purpose and address; a new
/// one replaces it.
public struct OneTimeCode: Sendable, Equatable {
    public enum Purpose: String, Sendable, CaseIterable {
        case verifyEmail = "verify_email"
        case resetPassword = "reset_password"
        case passwordless
    }

    public var purpose: Purpose
    /// `User.emailKey` of the address it was sent to.
    public var emailKey: String
    /// Keyed digest of the code (six digits are too few for a plain hash).
    public var codeHash: String
    /// SHA-256 of a reset link's token, when a link was sent with the code.
    public var linkHash: String?
    /// The application the code was asked for (its name is in the email; tokens go to it).
    public var clientID: String?
    public var attempts: Int
    public var createdAt: Date
    public var expiresAt: Date

    public init(purpose: Purpose, emailKey: String, codeHash: String, linkHash: String? = nil, clientID: String?,
                attempts: Int = 0, createdAt: Date, expiresAt: Date) {
        self.purpose = purpose
        self.emailKey = emailKey
        self.codeHash = codeHash
        self.linkHash = linkHash
        self.clientID = clientID
        self.attempts = attempts
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// What one try of a code found.
public enum CodeAttempt: Sendable, Equatable {
    /// Right code: it is consumed.
    case accepted(OneTimeCode)
    /// Wrong code; it survives for this many more tries.
    case wrong(remaining: Int)
    /// Wrong code, and that was the last try: the code is gone.
    case exhausted
    /// No live code for this purpose and address (never sent, used, expired or exhausted).
    case none
}

public protocol OneTimeCodeStore: Sendable {
    /// Stores the code, replacing any earlier one of the same purpose and address.
    func issue(_ code: OneTimeCode) throws(StorageError)
    /// One try, atomically: a right code is consumed; a wrong one counts, and the `maxAttempts`-th
    /// wrong try deletes the code.
    func attempt(_ purpose: OneTimeCode.Purpose, emailKey: String, codeHash: String, maxAttempts: Int,
                 at time: Date) throws(StorageError) -> CodeAttempt
    /// Consumes the live code whose link token hashes to `linkHash` (a reset link works once).
    func redeemLink(linkHash: String, at time: Date) throws(StorageError) -> OneTimeCode?
    /// The live code a link token belongs to, without consuming it (to show the reset page).
    func findLink(linkHash: String, at time: Date) throws(StorageError) -> OneTimeCode?
    /// The live code of this purpose and address, without trying it.
    func find(_ purpose: OneTimeCode.Purpose, emailKey: String, at time: Date) throws(StorageError) -> OneTimeCode?
}

/// Earlier password hashes of a user, for the optional history rule.
public protocol PasswordHistoryStore: Sendable {
    /// The newest `limit` earlier hashes, newest first.
    func recent(userID: String, limit: Int) throws(StorageError) -> [String]
}
