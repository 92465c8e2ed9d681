import Crypto
import FoundationEssentials
import Model

/// Fixed-window request budgets for the account endpoints (signup, reset, passwordless start and
/// code checks), per client address and per email, kept in the shared throttle table so they hold
/// across restarts (and, with a shared database, across nodes). An email appears in a key only as
/// a digest.
public struct AbuseLimits: Sendable {
    /// One budget: at most `limit` requests per `window` seconds.
    public struct Budget: Sendable, Equatable {
        public var limit: Int
        public var window: TimeInterval

        public init(limit: Int, window: TimeInterval) {
            self.limit = limit
            self.window = window
        }
    }

    /// What is limited, and the key prefix it counts under.
    public enum Kind: String, Sendable, CaseIterable {
        case signup, reset, passwordlessStart = "otp_start", codeCheck = "code_check", mail
    }

    public let store: any LoginThrottleStore
    public let clock: any Clock
    /// Requests per client address (an IPv6 /64 counts as one address).
    public var perAddress = Budget(limit: 30, window: 600)
    /// Requests per email, for the kinds that name one.
    public var perEmail = Budget(limit: 10, window: 3600)
    /// Messages sent to one address.
    public var mailPerAddress = Budget(limit: 5, window: 3600)
    public var ipv6Prefix = 64

    public init(store: any LoginThrottleStore, clock: any Clock) {
        self.store = store
        self.clock = clock
    }

    /// Counts one request; `nil` when within every budget, else seconds until the tightest one reopens.
    public func admit(_ kind: Kind, ip: String, email: String?) throws(StorageError) -> Int? {
        var waits: [Int] = []
        if !ip.isEmpty, let wait = try count("acct:\(kind.rawValue):ip:" + IPAddressGroup.group(ip, ipv6PrefixLength: ipv6Prefix), perAddress) {
            waits.append(wait)
        }
        if let email, let wait = try count("acct:\(kind.rawValue):email:" + Self.emailDigest(email), perEmail) { waits.append(wait) }
        return waits.max()
    }

    /// Whether one more message may go to this address this hour (counts it when it may).
    public func admitMail(to email: String) throws(StorageError) -> Bool {
        try count("acct:mail:" + Self.emailDigest(email), mailPerAddress) == nil
    }

    /// Adds one to the key's current window; the seconds left in the window when it is over budget.
    private func count(_ key: String, _ budget: Budget) throws(StorageError) -> Int? {
        let now = clock.now
        let state = try store.update(key: key) { current in
            guard var current, now.timeIntervalSince(current.windowStartedAt) < budget.window else {
                return ThrottleState(key: key, failures: 1, windowStartedAt: now, lastFailureAt: now)
            }
            current.failures += 1
            current.lastFailureAt = now
            return current
        }
        guard state.failures > budget.limit else { return nil }
        return max(1, Int((budget.window - now.timeIntervalSince(state.windowStartedAt)).rounded(.up)))
    }

    static func emailDigest(_ email: String) -> String {
        String(SecretDigest.hash(User.emailKey(email)).prefix(32))
    }
}
