import FoundationEssentials

/// What changing a password ended besides the old password.
public struct PasswordChange: Sendable, Equatable {
    public var userID: String
    public var newHash: String
    public var time: Date
    /// The user proved they read the address (a reset code or link): mark it verified.
    public var verifiesEmail: Bool
    /// End every session and revoke every grant (and refresh token) of the user.
    public var revokesAccess: Bool
    /// Earlier hashes kept for the history rule; 0 keeps none.
    public var historySize: Int

    public init(userID: String, newHash: String, time: Date, verifiesEmail: Bool, revokesAccess: Bool, historySize: Int) {
        self.userID = userID
        self.newHash = newHash
        self.time = time
        self.verifiesEmail = verifiesEmail
        self.revokesAccess = revokesAccess
        self.historySize = historySize
    }
}

/// The self-service writes that must be one transaction each.
public protocol AccountStore: PasswordHistoryStore {
    /// Replaces the password (keeping the old hash in the history when asked), and, as the change
    /// says, marks the email verified and revokes the user's sessions, grants and refresh tokens.
    /// Throws `.notFound` for an unknown user.
    func changePassword(_ change: PasswordChange) throws(StorageError)
    /// Marks the address confirmed; throws `.notFound` for an unknown user.
    func markEmailVerified(userID: String, at time: Date) throws(StorageError)
}
