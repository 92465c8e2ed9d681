import Crypto
import Dispatch
import Synchronization

/// The hash an unknown email is checked against, and what making it cost (one scrypt with today's
/// parameters, as long as verifying it). Made on a background thread as soon as it is created, so a
/// start-up does not wait one scrypt for the first `200` (issue #18: ~90 ms of a ~130 ms start);
/// the first unknown-email check within that time waits for it.
final class DummyPassword: Sendable {
    private let made = DispatchGroup()
    private let value = Mutex<(hash: String, cost: Duration)?>(nil)

    init() {
        made.enter()
        DispatchQueue.global(qos: .utility).async { [self] in
            var hash: String?
            let cost = ContinuousClock().measure { hash = try? PasswordHash.hash(Random.token(bytes: 16)) }
            // Hashing cannot fail with the default parameters short of OpenSSL being broken; a
            // well-formed hash with today's parameters costs the same to verify.
            value.withLock { $0 = (hash ?? "$scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", cost) }
            made.leave()
        }
    }

    var hash: String { ready().hash }
    var cost: Duration { ready().cost }

    private func ready() -> (hash: String, cost: Duration) {
        made.wait()
        return value.withLock { $0! }
    }
}
