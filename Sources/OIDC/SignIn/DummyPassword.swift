import Crypto
import Dispatch
import Synchronization

/// The hash an unknown email is checked against, and what making it cost (one scrypt with today's
/// parameters, as long as verifying it). One per process, made at first need or by
/// `prepareInBackground()`, which the daemon calls once it listens: a start does not wait one
/// scrypt for its first `200`, nor share the CPU with one (issue #18: ~90 ms of a ~130 ms start).
final class DummyPassword: Sendable {
    static let shared = DummyPassword()

    private let made = Mutex<(hash: String, cost: Duration)?>(nil)

    /// Made on the first call; a concurrent caller waits for that one.
    var value: (hash: String, cost: Duration) {
        made.withLock { made in
            if let made { return made }
            var hash: String?
            let cost = ContinuousClock().measure { hash = try? PasswordHash.hash(Random.token(bytes: 16)) }
            // Hashing cannot fail with the default parameters short of OpenSSL being broken; a
            // well-formed hash with today's parameters costs the same to verify.
            let value = (hash ?? "$scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", cost)
            made = value
            return value
        }
    }

    func prepareInBackground() {
        DispatchQueue.global(qos: .utility).async { _ = self.value }
    }
}
