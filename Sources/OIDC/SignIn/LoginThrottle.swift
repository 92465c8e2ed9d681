import Crypto
import FoundationEssentials
import Model

/// Brute-force protection for the login form and the password grants (negative-tests G02–G08).
///
/// - Per email and IP: after `maxFailures` failures within `window` the pair is locked for
///   `lockDuration`; two failures less than a second apart lock it for `quickLock` (a script,
///   not a person). Keying on the pair means an attacker elsewhere cannot lock a user out.
/// - Per IP: after `maxFailuresPerIP` failures within `ipWindow` (many emails tried from one
///   address) further attempts get 429 with `Retry-After`.
/// - A success clears the pair's counter; counters expire after their window; locks are in
///   SQLite, so a restart does not lift them. While a pair is locked, even the right password
///   gets the generic failure answer.
public struct LoginThrottle: Sendable {
    public let store: any LoginThrottleStore
    public let clock: any Clock
    public var maxFailures = 10
    public var window: TimeInterval = 12 * 3600
    public var lockDuration: TimeInterval = 15 * 60
    public var quickLock: TimeInterval = 60
    public var maxFailuresPerIP = 100
    public var ipWindow: TimeInterval = 3600

    public enum Verdict: Equatable {
        case allowed
        /// The pair is locked: answer exactly as for a wrong password.
        case pairLocked
        /// The address is locked: answer 429 with `Retry-After` seconds.
        case addressLocked(retryAfter: Int)
    }

    public static func pairKey(email: String, ip: String) -> String {
        "pair:" + Digest.sha256Hex(Array(User.emailKey(email).utf8)) + "|" + ip
    }

    public static func addressKey(ip: String) -> String { "ip:" + ip }

    public func check(email: String, ip: String) throws(StorageError) -> Verdict {
        let now = clock.now
        if let until = try store.state(key: Self.addressKey(ip: ip))?.lockedUntil, until > now {
            return .addressLocked(retryAfter: max(1, Int(until.timeIntervalSince(now).rounded(.up))))
        }
        if let until = try store.state(key: Self.pairKey(email: email, ip: ip))?.lockedUntil, until > now {
            return .pairLocked
        }
        return .allowed
    }

    public func recordFailure(email: String, ip: String) throws(StorageError) {
        let now = clock.now
        let (maxFailures, window, lockDuration, quickLock) = (self.maxFailures, self.window, self.lockDuration, self.quickLock)
        _ = try store.update(key: Self.pairKey(email: email, ip: ip)) { current in
            var state = Self.counting(current, key: Self.pairKey(email: email, ip: ip), now: now, window: window)
            if let previous = current?.lastFailureAt, now.timeIntervalSince(previous) < 1, state.failures >= 2 {
                state.lockedUntil = max(state.lockedUntil ?? now, now.addingTimeInterval(quickLock))
            }
            if state.failures >= maxFailures {
                state.lockedUntil = max(state.lockedUntil ?? now, now.addingTimeInterval(lockDuration))
            }
            return state
        }
        let (maxPerIP, ipWindow) = (maxFailuresPerIP, self.ipWindow)
        _ = try store.update(key: Self.addressKey(ip: ip)) { current in
            var state = Self.counting(current, key: Self.addressKey(ip: ip), now: now, window: ipWindow)
            if state.failures >= maxPerIP { state.lockedUntil = now.addingTimeInterval(lockDuration) }
            return state
        }
    }

    public func recordSuccess(email: String, ip: String) throws(StorageError) {
        try store.clear(key: Self.pairKey(email: email, ip: ip))
    }

    public init(store: any LoginThrottleStore, clock: any Clock) {
        self.store = store
        self.clock = clock
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
}
