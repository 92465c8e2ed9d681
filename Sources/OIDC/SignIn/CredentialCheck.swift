import Crypto
import FoundationEssentials
import Model

/// The one email-and-password check, with brute-force throttling, that the login form and the
/// password grants share (negative-tests G02–G08). It decides and counts; a success is committed by
/// the caller with the rest of the login (`SignInStore.completeLogin`), which also clears the
/// throttle key named in `Verdict.verified`.
///
/// Order: the attempt is reserved first (`LoginThrottle.reserve`: the lock checks and the count in
/// one step, so a concurrent burst cannot outrun the limit); a locked attempt is answered at once
/// and costs no hash. Otherwise the password is checked. Unknown emails, wrong passwords and users
/// without a password fail the same way and take the same time: an unknown email is checked against
/// a dummy hash, and every checked attempt takes at least `floor` (the dummy's own time), so a user
/// with a cheaper imported bcrypt hash answers no faster than an unknown email (G07). A blocked
/// user learns so only after the right password.
public struct CredentialCheck: Sendable {
    public let users: any UserStore
    public let throttle: LoginThrottle
    /// A hash of a random password, with today's parameters, verified for unknown users.
    private var dummy: DummyPassword { .shared }
    /// The shortest time a checked attempt may take; nil: no padding (or the dummy's cost, see `measureFloor`).
    public var floor: Duration?
    private var floorIsDummyCost = false
    /// Waits out what is left of `floor` (the daemon sleeps the worker thread; tests record).
    public var pause: @Sendable (Duration) -> Void = { _ in }

    public init(users: any UserStore, throttle: LoginThrottle) {
        self.users = users
        self.throttle = throttle
    }

    /// Makes the unknown-email path's hash now, if it is not made yet (the daemon calls this on a
    /// background thread once it listens; a sign-in that needs the hash first waits for it).
    public static func prepare() {
        _ = DummyPassword.shared.value
    }

    /// Takes the unknown-email path's time (the dummy hash's, timed when it was made, so nobody
    /// pays a second hash) as the floor for every checked attempt.
    public mutating func measureFloor() {
        floorIsDummyCost = true
    }

    public enum Verdict: Sendable, Equatable {
        /// The right password of an active user. `rehashedPassword` is today's hash of it when the
        /// stored one is weaker (scrypt or weaker Argon2id parameters, an imported bcrypt hash), to store at commit.
        case verified(User, rehashedPassword: String?, clearedThrottleKey: String)
        /// Wrong email or password, or no password: one answer for all. Counted.
        case rejected(reason: String, userID: String?)
        /// The right password of a blocked user (Auth0's "user is blocked"). Counted.
        case blocked(User)
        /// The email+address pair is locked after repeated failures (Auth0's "account blocked").
        case pairLocked(retryAfter: Int, userID: String?)
        /// The address is locked: 429 with `Retry-After` seconds (G05).
        case addressLocked(retryAfter: Int)
        /// The account is being guessed at from many addresses: retry after this many seconds.
        case accountDelayed(retryAfter: Int, userID: String?)
    }

    public func check(email: String, password: String, ip: String) throws(StorageError) -> Verdict {
        switch try throttle.reserve(email: email, ip: ip) {
        case .addressLocked(let retryAfter):
            return .addressLocked(retryAfter: retryAfter)
        case .pairLocked(let retryAfter):
            return .pairLocked(retryAfter: retryAfter, userID: try users.find(email: email)?.userID)
        case .accountDelayed(let retryAfter):
            return .accountDelayed(retryAfter: retryAfter, userID: try users.find(email: email)?.userID)
        case .granted:
            break
        }
        // Made before the clock starts, so the first unknown email in a process takes no longer than the next.
        _ = dummy.value
        let started = ContinuousClock.now
        defer { padToFloor(since: started) }
        let verdict = try verify(email: email, password: password)
        switch verdict {
        case .verified(let user, let rehashed, _):
            return .verified(user, rehashedPassword: rehashed, clearedThrottleKey: LoginThrottle.pairKey(email: email, ip: ip))
        case .rejected, .blocked:
            try throttle.recordRejection(email: email, ip: ip)
            return verdict
        case .pairLocked, .addressLocked, .accountDelayed:
            return verdict
        }
    }

    /// The password check alone, without throttling or padding.
    func verify(email: String, password: String) throws(StorageError) -> Verdict {
        let user = try users.find(email: email)
        guard let user, let hash = user.passwordHash else {
            _ = PasswordHash.verify(password, against: dummy.value.hash)
            return .rejected(reason: user == nil ? "unknown_email" : "no_password", userID: user?.userID)
        }
        guard PasswordHash.verify(password, against: hash) else { return .rejected(reason: "wrong_password", userID: user.userID) }
        guard !user.blocked else { return .blocked(user) }
        let rehashed = PasswordHash.needsRehash(hash) ? try? PasswordHash.hash(password) : nil
        return .verified(user, rehashedPassword: rehashed, clearedThrottleKey: "")
    }

    private func padToFloor(since started: ContinuousClock.Instant) {
        guard let floor = floorIsDummyCost ? dummy.value.cost : floor else { return }
        let remaining = floor - (ContinuousClock.now - started)
        if remaining > .zero { pause(remaining) }
    }
}

extension CredentialCheck.Verdict {
    /// The outcome as a sign-in event; `channel` tells the login form from the password grants.
    func event(clientID: String?, channel: String?) -> SignInEvent {
        var details: [String: String] = channel.map { ["channel": $0] } ?? [:]
        switch self {
        case .verified(let user, _, _):
            return SignInEvent(.loginSucceeded, userID: user.userID, clientID: clientID, details: details)
        case .rejected(let reason, let userID):
            details["reason"] = reason
            return SignInEvent(.loginFailed, userID: userID, clientID: clientID, details: details)
        case .blocked(let user):
            details["reason"] = "blocked"
            return SignInEvent(.loginFailed, userID: user.userID, clientID: clientID, details: details)
        case .pairLocked(_, let userID):
            details["scope"] = "account"
            return SignInEvent(.loginThrottled, userID: userID, clientID: clientID, details: details)
        case .accountDelayed(_, let userID):
            details["scope"] = "account_all_addresses"
            return SignInEvent(.loginThrottled, userID: userID, clientID: clientID, details: details)
        case .addressLocked:
            details["scope"] = "ip"
            return SignInEvent(.loginThrottled, clientID: clientID, details: details)
        }
    }
}

/// The texts people and SDKs see for each refusal (Auth0's where it has one).
public enum CredentialMessages {
    /// Auth0's text for a failed login, which Auth0.swift matches.
    public static let wrongCredentials = "Wrong email or password."
    /// Auth0's brute-force text (Auth0.swift `isTooManyAttempts` keys on the code), with when to retry.
    public static func accountBlocked(retryAfter: Int) -> String {
        "Your account has been blocked after multiple consecutive login attempts. Try again in \(duration(retryAfter))."
    }
    /// Auth0's text for a blocked user (Auth0.swift `isRuleError` keys on the code `unauthorized`).
    public static let userBlocked = "user is blocked"
    public static let addressThrottled = "Too many failed attempts. Try again later."

    /// "1 minute", "15 minutes", "30 seconds".
    static func duration(_ seconds: Int) -> String {
        if seconds < 60 { return seconds == 1 ? "1 second" : "\(seconds) seconds" }
        let minutes = (seconds + 59) / 60
        return minutes == 1 ? "1 minute" : "\(minutes) minutes"
    }
}
