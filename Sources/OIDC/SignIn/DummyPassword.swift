import Crypto
import Synchronization

/// The hash an unknown email is checked against, and what making it cost (one Argon2id with
/// today's parameters, as long as verifying it). One per process, made at first need or by
/// `CredentialCheck.prepare()`, which the daemon calls on a background thread once it listens: a
/// start does not wait one password hash for its first `200`, nor share the CPU with one (issue #18).
final class DummyPassword: Sendable {
    static let shared = DummyPassword()

    private let made = Mutex<(hash: String, cost: Duration)?>(nil)

    /// Made on the first call; a concurrent caller waits for that one.
    var value: (hash: String, cost: Duration) {
        made.withLock { made in
            if let made { return made }
            var hash: String?
            let cost = ContinuousClock().measure { hash = try? PasswordHash.hash(Random.token(bytes: 16)) }
            // Hashing fails only if 7 MiB cannot be mapped; a well-formed hash with today's
            // parameters costs the same to verify.
            let value = (hash ?? "$argon2id$v=19$m=7168,t=5,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", cost)
            made = value
            return value
        }
    }
}
