import FoundationEssentials

/// Everything a successful login changes, committed together so no half-done login can remain
/// (the sign-in flow's and the password grants' one write; `SignInStore.completeLogin`).
public struct LoginCompletion: Sendable, Equatable {
    public var userID: String
    public var time: Date
    /// A new hash to store (a scrypt, weaker Argon2id or imported bcrypt hash replaced); nil keeps the stored one.
    public var rehashedPassword: String?
    /// Throttle keys the success clears (the email+address pair).
    public var clearedThrottleKeys: [String]
    /// The browser session the login starts; nil for the password grants.
    public var session: Session?
    /// The login transaction, stored now with the session attached (until the login it lived only in
    /// its sealed cookie); nil for the password grants.
    public var transaction: LoginTransaction?

    public init(userID: String, time: Date, rehashedPassword: String? = nil, clearedThrottleKeys: [String] = [],
                session: Session? = nil, transaction: LoginTransaction? = nil) {
        self.userID = userID
        self.time = time
        self.rehashedPassword = rehashedPassword
        self.clearedThrottleKeys = clearedThrottleKeys
        self.session = session
        self.transaction = transaction
    }
}

/// Commits a successful login in ONE transaction: the user's login count and time (and a rehash),
/// the throttle reset, the new session and the login transaction it is attached to.
public protocol SignInStore: Sendable {
    /// Throws `.notFound` when the user no longer exists and `.alreadyExists` when the transaction
    /// was already completed; nothing is then changed.
    func completeLogin(_ completion: LoginCompletion) throws(StorageError)
}
