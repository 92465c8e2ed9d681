import Crypto
import FoundationEssentials
import Model
import Synchronization

/// Brute-force protection for the login form and the password grants (negative-tests G02–G08).
///
/// - **Per email and address** (the pair): after `maxFailures` failures within `window` the pair
///   is locked for `lockDuration`; two failures less than a second apart lock it for `quickLock`
///   (a script, not a person). Keying on the pair means an attacker elsewhere cannot lock a user out.
/// - **Per address**: after `maxFailuresPerAddress` failures within `addressWindow` (many emails
///   from one place) attempts get 429 with `Retry-After`. IPv6 addresses count by their
///   `ipv6PrefixLength` prefix (a /64 is one subscriber's), IPv4 by the whole address — behind
///   carrier-grade NAT many users share one, so the limit is a setting.
/// - **Per account, across addresses**: past `accountFailures` failures within `window`, each
///   further attempt for the account must wait 2^(failures − accountFailures) seconds after the
///   last failure, up to `accountMaxDelay`. An attacker rotating addresses is slowed to a crawl;
///   the real user waits at most `accountMaxDelay` and is never locked out.
///
/// An attempt is **reserved** before any password is hashed (`reserve`): one store update checks
/// the pair's lock and counts the attempt as a failure, so a burst of concurrent attempts cannot
/// all pass the check; a success clears the pair with the login's commit. A locked attempt costs no
/// hash and counts towards its address. Counters expire after their window; locks are stored, so
/// a restart does not lift them; an operator lifts them with `idp-admin users unblock`.
public struct LoginThrottle: Sendable {
    public struct Policy: Sendable, Equatable {
        public var maxFailures = 10
        public var window: TimeInterval = 12 * 3600
        public var lockDuration: TimeInterval = 15 * 60
        public var quickLock: TimeInterval = 60
        public var maxFailuresPerAddress = 100
        public var addressWindow: TimeInterval = 3600
        public var ipv6PrefixLength = 64
        public var accountFailures = 30
        public var accountMaxDelay: TimeInterval = 300

        public init() {}
    }

    public let store: any LoginThrottleStore
    public let clock: any Clock
    public var policy: Policy

    public init(store: any LoginThrottleStore, clock: any Clock, policy: Policy = Policy()) {
        self.store = store
        self.clock = clock
        self.policy = policy
    }

    public enum Verdict: Equatable {
        case allowed
        /// The pair is locked.
        case pairLocked
        /// The address is locked: answer 429 with `Retry-After` seconds.
        case addressLocked(retryAfter: Int)
    }

    /// What reserving an attempt found; only `.granted` may hash a password.
    public enum Reservation: Sendable, Equatable {
        case granted
        case pairLocked(retryAfter: Int)
        case addressLocked(retryAfter: Int)
        /// The account is being guessed at from many addresses: retry after this many seconds.
        case accountDelayed(retryAfter: Int)
    }

    public static func pairKey(email: String, ip: String) -> String {
        "pair:" + emailDigest(email) + "|" + ip
    }

    public static func addressKey(ip: String) -> String { "ip:" + ip }

    public static func accountKey(email: String) -> String { "acct:" + emailDigest(email) }

    /// Every key of an account starts with one of these (`idp-admin users show|unblock`).
    public static func accountKeyPrefixes(email: String) -> [String] {
        ["pair:" + emailDigest(email) + "|", accountKey(email: email)]
    }

    static func emailDigest(_ email: String) -> String { Digest.sha256Hex(Array(User.emailKey(email).utf8)) }

    /// The address as counted: IPv6 by its prefix, anything else as it is.
    public func addressGroup(_ ip: String) -> String { IPAddressGroup.group(ip, ipv6PrefixLength: policy.ipv6PrefixLength) }

    /// A look without counting (tools, tests).
    public func check(email: String, ip: String) throws(StorageError) -> Verdict {
        let now = clock.now
        if let until = try store.state(key: Self.addressKey(ip: addressGroup(ip)))?.lockedUntil, until > now {
            return .addressLocked(retryAfter: Self.seconds(until, after: now))
        }
        if let until = try store.state(key: Self.pairKey(email: email, ip: ip))?.lockedUntil, until > now {
            return .pairLocked
        }
        return .allowed
    }

    /// Checks every limit and counts this attempt as the pair's failure in one atomic update.
    public func reserve(email: String, ip: String) throws(StorageError) -> Reservation {
        let now = clock.now
        let address = Self.addressKey(ip: addressGroup(ip))
        if let until = try store.state(key: address)?.lockedUntil, until > now {
            return .addressLocked(retryAfter: Self.seconds(until, after: now))
        }
        if let account = try store.state(key: Self.accountKey(email: email)), let until = accountUntil(account, now: now), until > now {
            try countAddress(address, now: now)
            return .accountDelayed(retryAfter: Self.seconds(until, after: now))
        }
        let key = Self.pairKey(email: email, ip: ip)
        let policy = self.policy
        let lockedBefore = Flag()
        let counted = try store.update(key: key) { current in
            if let current, let until = current.lockedUntil, until > now {
                lockedBefore.set()
                return current
            }
            return Self.pairFailure(current, key: key, now: now, policy: policy)
        }
        if lockedBefore.isSet, let until = counted.lockedUntil {
            // Locked before this attempt: no hash, and it counts towards the address.
            try countAddress(address, now: now)
            return .pairLocked(retryAfter: Self.seconds(until, after: now))
        }
        return .granted
    }

    /// A reserved attempt failed (wrong password, unknown email, blocked user): the address and
    /// the account count it too (the pair already did).
    public func recordRejection(email: String, ip: String) throws(StorageError) {
        let now = clock.now
        try countAddress(Self.addressKey(ip: addressGroup(ip)), now: now)
        let key = Self.accountKey(email: email)
        let window = policy.window
        _ = try store.update(key: key) { current in Self.counting(current, key: key, now: now, window: window) }
    }

    /// A failure counted without a reservation (tools and tests): pair, address and account.
    public func recordFailure(email: String, ip: String) throws(StorageError) {
        let now = clock.now
        let key = Self.pairKey(email: email, ip: ip)
        let policy = self.policy
        _ = try store.update(key: key) { current in Self.pairFailure(current, key: key, now: now, policy: policy) }
        try recordRejection(email: email, ip: ip)
    }

    public func recordSuccess(email: String, ip: String) throws(StorageError) {
        try store.clear(key: Self.pairKey(email: email, ip: ip))
    }

    /// The pair's state with one more failure and its lock rules applied.
    private static func pairFailure(_ current: ThrottleState?, key: String, now: Date, policy: Policy) -> ThrottleState {
        var state = counting(current, key: key, now: now, window: policy.window)
        if let previous = current?.lastFailureAt, now.timeIntervalSince(previous) < 1, state.failures >= 2 {
            state.lockedUntil = max(state.lockedUntil ?? now, now.addingTimeInterval(policy.quickLock))
        }
        if state.failures >= policy.maxFailures {
            state.lockedUntil = max(state.lockedUntil ?? now, now.addingTimeInterval(policy.lockDuration))
        }
        return state
    }

    private func countAddress(_ key: String, now: Date) throws(StorageError) {
        let (maxFailures, window, lock) = (policy.maxFailuresPerAddress, policy.addressWindow, policy.lockDuration)
        _ = try store.update(key: key) { current in
            var state = Self.counting(current, key: key, now: now, window: window)
            if state.failures >= maxFailures { state.lockedUntil = max(state.lockedUntil ?? now, now.addingTimeInterval(lock)) }
            return state
        }
    }

    /// When the account's next attempt may come: nil below the threshold or past the window.
    func accountUntil(_ state: ThrottleState, now: Date) -> Date? {
        guard now.timeIntervalSince(state.windowStartedAt) < policy.window, state.failures >= policy.accountFailures else { return nil }
        let exponent = min(state.failures - policy.accountFailures, 30)
        let delay = min(TimeInterval(1 << exponent), policy.accountMaxDelay)
        return state.lastFailureAt.addingTimeInterval(delay)
    }

    /// The state with this failure counted; a window older than `window` starts again.
    private static func counting(_ current: ThrottleState?, key: String, now: Date, window: TimeInterval) -> ThrottleState {
        guard var state = current, now.timeIntervalSince(state.windowStartedAt) < window else {
            let lock = current?.lockedUntil.flatMap { $0 > now ? $0 : nil }
            return ThrottleState(key: key, failures: 1, windowStartedAt: now, lastFailureAt: now, lockedUntil: lock)
        }
        state.failures += 1
        state.lastFailureAt = now
        if let until = state.lockedUntil, until <= now { state.lockedUntil = nil }
        return state
    }

    static func seconds(_ until: Date, after now: Date) -> Int { max(1, Int(until.timeIntervalSince(now).rounded(.up))) }

    /// Set from inside a store's update closure, read after it returns.
    private final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .relaxed) }
        var isSet: Bool { value.load(ordering: .relaxed) }
    }
}
