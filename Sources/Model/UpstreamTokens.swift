import FoundationEssentials

/// An upstream provider's refresh token for an identity (Apple's, kept so account deletion can
/// revoke it at Apple, App Store guideline 5.1.1(v)), and the client id it was issued to: the
/// Services ID after a browser sign-in, the bundle id after a native code exchange. Revocation
/// must name that same client id.
public struct UpstreamRefreshToken: Sendable, Equatable {
    public var token: String
    public var clientID: String

    public init(token: String, clientID: String) {
        self.token = token
        self.clientID = clientID
    }
}

/// Upstream refresh tokens, sealed at rest (`SQLiteUpstreamTokenStore`).
public protocol UpstreamTokenStore: Sendable {
    /// Keeps the identity's newest refresh token (replacing an older one); throws `.notFound` for an unknown identity.
    func setRefreshToken(_ token: UpstreamRefreshToken, connection: String, subject: String, at time: Date) throws(StorageError)
    func refreshToken(connection: String, subject: String) throws(StorageError) -> UpstreamRefreshToken?
    /// Forgets it (consent revoked upstream: it is void there already).
    func clearRefreshToken(connection: String, subject: String) throws(StorageError)
    /// Records what Apple said about the identity's private-relay email (`email-enabled`/`email-disabled`).
    func setEmailForwarding(_ enabled: Bool, connection: String, subject: String, at time: Date) throws(StorageError)
}

/// What deleting an account did (`AccountDeleter`).
public struct DeletedAccount: Sendable, Equatable {
    /// The id audit events now carry instead of the user id (`SQLiteAccountDeletion.pseudonym`).
    public var pseudonym: String
    /// Upstream revocations queued (one per stored Apple refresh token).
    public var revocationsQueued: Int
    public var identities: Int
    public var sessions: Int
    public var grants: Int

    public init(pseudonym: String, revocationsQueued: Int, identities: Int, sessions: Int, grants: Int) {
        self.pseudonym = pseudonym
        self.revocationsQueued = revocationsQueued
        self.identities = identities
        self.sessions = sessions
        self.grants = grants
    }
}

/// Deletes a user and everything that is theirs in one transaction (README "Account deletion").
public protocol AccountDeleter: Sendable {
    /// Throws `.notFound` for an unknown user.
    func deleteAccount(userID: String, at time: Date) throws(StorageError) -> DeletedAccount
}
