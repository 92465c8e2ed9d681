import Foundation

/// A stored refresh token as revocation and introspection see it (table `refresh_tokens`).
public struct RefreshTokenSnapshot: Sendable, Equatable {
    public var grantID: String
    public var clientID: String
    public var userID: String
    public var scope: String
    public var issuedAt: Date
    public var expiresAt: Date
    public var lastUsedAt: Date
    public var rotatedAt: Date?
    public var revokedAt: Date?

    public init(grantID: String, clientID: String, userID: String, scope: String, issuedAt: Date, expiresAt: Date,
                lastUsedAt: Date, rotatedAt: Date? = nil, revokedAt: Date? = nil) {
        self.grantID = grantID
        self.clientID = clientID
        self.userID = userID
        self.scope = scope
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
        self.rotatedAt = rotatedAt
        self.revokedAt = revokedAt
    }
}

/// The read-only queries revocation, introspection and logout need beyond the record stores.
public protocol LifecycleLookup: Sendable {
    /// The refresh token whose SHA-256 hex (`SecretDigest.hash`) is `tokenHash`, if stored.
    func refreshToken(hash tokenHash: String) throws(StorageError) -> RefreshTokenSnapshot?
    /// The live (not revoked) grants issued under the browser session `sessionID`.
    func liveGrants(sessionID: String) throws(StorageError) -> [Grant]
}
