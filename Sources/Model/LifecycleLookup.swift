import FoundationEssentials

/// The read-only queries revocation, introspection and logout need beyond the record stores.
public protocol LifecycleLookup: Sendable {
    /// The refresh token the key names (its SHA-256 hex, `SecretDigest.hash`, and place when the value names one), if stored.
    func refreshToken(_ key: RefreshTokenKey) throws(StorageError) -> RefreshToken?
    /// The live (not revoked) grants issued under the browser session `sessionID`.
    func liveGrants(sessionID: String) throws(StorageError) -> [Grant]
}

extension LifecycleLookup {
    /// A refresh token found by its digest alone.
    public func refreshToken(hash tokenHash: String) throws(StorageError) -> RefreshToken? {
        try refreshToken(RefreshTokenKey(tokenHash: tokenHash))
    }
}
