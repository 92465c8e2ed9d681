import FoundationEssentials

/// The read-only queries revocation, introspection and logout need beyond the record stores.
public protocol LifecycleLookup: Sendable {
    /// The refresh token whose SHA-256 hex (`SecretDigest.hash`) is `tokenHash`, if stored.
    func refreshToken(hash tokenHash: String) throws(StorageError) -> RefreshToken?
    /// The live (not revoked) grants issued under the browser session `sessionID`.
    func liveGrants(sessionID: String) throws(StorageError) -> [Grant]
}
