import FoundationEssentials

/// A pending authorization: the validated /authorize request, kept between showing the login form
/// and issuing the code — sealed in the browser's cookie until the login, then stored with its session.
public struct LoginTransaction: Sendable, Equatable {
    /// Digest of the transaction id (the form's `tx`).
    public var idHash: String
    public var clientID: String
    /// The validated authorization request parameters (redirect_uri, state, nonce, scope, PKCE, …).
    public var parameters: [String: String]
    /// Digest of the CSRF token the login form carries.
    public var csrfHash: String
    public var createdAt: Date
    public var expiresAt: Date
    /// Set once the user authenticated; the continuation then issues the code.
    public var sessionID: String?

    public init(idHash: String, clientID: String, parameters: [String: String], csrfHash: String,
                createdAt: Date, expiresAt: Date, sessionID: String? = nil) {
        self.idHash = idHash
        self.clientID = clientID
        self.parameters = parameters
        self.csrfHash = csrfHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.sessionID = sessionID
    }
}

/// Login transactions that completed a sign-in (stored by `SignInStore.completeLogin` with their
/// session; until then a transaction lives only in its sealed cookie), for the single-use continuation.
public protocol LoginTransactionStore: Sendable {
    func create(_ transaction: LoginTransaction) throws(StorageError)
    /// nil when unknown or expired at `time`.
    func find(idHash: String, at time: Date) throws(StorageError) -> LoginTransaction?
    /// Single use: detaches its session (the row stays until it expires, so the transaction cannot
    /// sign in again) and returns whether it had one.
    func consume(idHash: String) throws(StorageError) -> Bool
}
