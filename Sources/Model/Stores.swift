import FoundationEssentials

// The narrow storage interfaces the protocol core and the web layer use. SQLite
// implements them in `Storage`; TestSupport has in-memory ones. Every method throws
// `StorageError` only.

public protocol ClientStore: Sendable {
    /// Throws `.alreadyExists` for a taken client id.
    func create(_ client: Client) throws(StorageError)
    func find(clientID: String) throws(StorageError) -> Client?
    func list() throws(StorageError) -> [Client]
    /// Replaces every field; throws `.notFound` for an unknown id.
    func update(_ client: Client) throws(StorageError)
    /// Deletes the client with its codes, grants and tokens; throws `.notFound`.
    func delete(clientID: String) throws(StorageError)
}

public protocol UserStore: Sendable {
    /// Throws `.alreadyExists` when the email (case-insensitively) or id is taken.
    func create(_ user: User) throws(StorageError)
    func find(userID: String) throws(StorageError) -> User?
    /// Case-insensitive.
    func find(email: String) throws(StorageError) -> User?
    /// Replaces every field; throws `.notFound`.
    func update(_ user: User) throws(StorageError)
    /// Counts a successful login; replaces the password hash when `rehashedPassword` is given
    /// (parameters raised, or a scrypt or imported bcrypt hash moved to Argon2id).
    func recordLogin(userID: String, at time: Date, rehashedPassword: String?) throws(StorageError)
}

/// What redeeming a code found.
public enum CodeRedemption: Sendable, Equatable {
    /// First use: the code is now marked used.
    case redeemed(AuthorizationCode)
    /// Already used before: a replay (RFC 6749 §4.1.2: revoke what it issued).
    case replayed(AuthorizationCode)
    case unknown
}

public protocol AuthorizationCodeStore: Sendable {
    func insert(_ code: AuthorizationCode) throws(StorageError)
    /// Marks the code used in one atomic step, so of concurrent redemptions exactly one sees `.redeemed`.
    func redeem(codeHash: String, at time: Date) throws(StorageError) -> CodeRedemption
    /// Records the grant issued from a redeemed code, so a replay can revoke it.
    func attachGrant(codeHash: String, grantID: String) throws(StorageError)
}

public protocol SessionStore: Sendable {
    func create(_ session: Session) throws(StorageError)
    func find(cookieHash: String) throws(StorageError) -> Session?
    func find(sessionID: String) throws(StorageError) -> Session?
    /// Live and ended sessions of a user, newest first.
    func list(userID: String) throws(StorageError) -> [Session]
    func end(sessionID: String, at time: Date) throws(StorageError)
}

public protocol GrantStore: Sendable {
    func create(_ grant: Grant) throws(StorageError)
    func find(grantID: String) throws(StorageError) -> Grant?
    /// Idempotent: revoking a revoked grant keeps the first time and reason.
    func revoke(grantID: String, at time: Date, reason: String) throws(StorageError)
    /// A `client_credentials` grant has no row: its token is a signed JWT that names the grant, the
    /// application and its own expiry, so there is nothing to store when it is issued (README
    /// "Machine-to-machine tokens"). Its revocation is remembered in `revoked_grants` until
    /// `expiresAt`, the token's `exp`. False when it was already revoked.
    func revokeMachineGrant(grantID: String, until expiresAt: Date) throws(StorageError) -> Bool
    /// Whether a `client_credentials` grant without a row was revoked.
    func isMachineGrantRevoked(grantID: String) throws(StorageError) -> Bool
}

/// A grant and a user read together (SQLite: one read transaction instead of two; PostgreSQL: two
/// statements, no BEGIN/COMMIT), for checking an access token on every `/userinfo` call.
public protocol GrantHolderReader: Sendable {
    func grantAndUser(grantID: String, userID: String) throws(StorageError) -> (grant: Grant?, user: User?)
    /// For a token we sealed, which names its grant, application and user: whether the grant may
    /// still back its access tokens (not among the revoked grants, its application still there),
    /// and the user, without reading the grant's row (migration 0020).
    func userOfLiveGrant(grantID: String, clientID: String, userID: String) throws(StorageError) -> (grantLive: Bool, user: User?)
}
