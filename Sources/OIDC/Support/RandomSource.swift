import Crypto

/// Where the sign-in flow takes its secrets from (transaction ids, CSRF tokens, session cookies),
/// injected so tests can fix them.
public protocol RandomSource: Sendable {
    /// `bytes` random bytes, base64url without padding.
    func token(bytes: Int) -> String
}

/// OpenSSL's CSPRNG.
public struct SystemRandom: RandomSource {
    public init() {}
    public func token(bytes: Int) -> String { Random.token(bytes: bytes) }
}
