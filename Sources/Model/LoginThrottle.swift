import FoundationEssentials

/// Failed-login bookkeeping for one throttle key (an email+IP pair, or an IP).
public struct ThrottleState: Sendable, Equatable {
    public var key: String
    /// Failures in the current window.
    public var failures: Int
    public var windowStartedAt: Date
    public var lastFailureAt: Date
    /// Attempts for this key are refused until then.
    public var lockedUntil: Date?

    public init(key: String, failures: Int, windowStartedAt: Date, lastFailureAt: Date, lockedUntil: Date? = nil) {
        self.key = key
        self.failures = failures
        self.windowStartedAt = windowStartedAt
        self.lastFailureAt = lastFailureAt
        self.lockedUntil = lockedUntil
    }
}

/// Persists throttle states, so a lock survives a restart (negative-tests G08).
public protocol LoginThrottleStore: Sendable {
    func state(key: String) throws(StorageError) -> ThrottleState?
    /// Applies `update` to the key's state (nil when none yet) in one transaction and stores the result.
    func update(key: String, _ update: @Sendable (ThrottleState?) -> ThrottleState) throws(StorageError) -> ThrottleState
    func clear(key: String) throws(StorageError)
}
