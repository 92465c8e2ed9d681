import Crypto
import FoundationEssentials
import Model

/// The one email-and-password check, with brute-force throttling, that the login form and the
/// password grants share (negative-tests G02–G08). It decides and counts failures; a success is
/// committed by the caller with the rest of the login (`SignInStore.completeLogin`), which also
/// clears the throttle key named in `Verdict.verified`.
///
/// Unknown emails, wrong passwords, users without a password and blocked users all fail the same
/// way and take the same time: an unknown email is checked against a dummy hash, so the answer
/// never tells whether an account exists (negative-tests G07).
public struct CredentialCheck: Sendable {
    public let users: any UserStore
    public let throttle: LoginThrottle
    /// A hash of a random password, with today's parameters, verified for unknown users.
    private let dummyHash: String

    public init(users: any UserStore, throttle: LoginThrottle) {
        self.users = users
        self.throttle = throttle
        // Hashing cannot fail with the default parameters short of OpenSSL being broken.
        dummyHash = (try? PasswordHash.hash(Random.token(bytes: 16)))
            ?? "$scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    }

    public enum Verdict: Sendable, Equatable {
        /// The right password of an active user. `rehashedPassword` is today's hash of it when the
        /// stored one is weaker (old scrypt parameters, an imported bcrypt hash), to store at commit.
        case verified(User, rehashedPassword: String?, clearedThrottleKey: String)
        /// Wrong email or password, no password, or a blocked user: one answer for all. Counted.
        case rejected(reason: String, userID: String?)
        /// The email+address pair is locked: answered exactly as `rejected`, after the same hashing time (G03).
        case pairLocked
        /// The address is locked: 429 with `Retry-After` seconds (G05).
        case addressLocked(retryAfter: Int)
    }

    public func check(email: String, password: String, ip: String) throws(StorageError) -> Verdict {
        switch try throttle.check(email: email, ip: ip) {
        case .addressLocked(let retryAfter):
            return .addressLocked(retryAfter: retryAfter)
        case .pairLocked:
            _ = PasswordHash.verify(password, against: dummyHash)
            return .pairLocked
        case .allowed:
            break
        }
        let verdict = try verify(email: email, password: password)
        if case .rejected = verdict { try throttle.recordFailure(email: email, ip: ip) }
        if case .verified(let user, let rehashed, _) = verdict {
            return .verified(user, rehashedPassword: rehashed, clearedThrottleKey: LoginThrottle.pairKey(email: email, ip: ip))
        }
        return verdict
    }

    /// The password check alone, without throttling.
    func verify(email: String, password: String) throws(StorageError) -> Verdict {
        let user = try users.find(email: email)
        guard let user, let hash = user.passwordHash else {
            _ = PasswordHash.verify(password, against: dummyHash)
            return .rejected(reason: user == nil ? "unknown_email" : "no_password", userID: user?.userID)
        }
        guard PasswordHash.verify(password, against: hash) else { return .rejected(reason: "wrong_password", userID: user.userID) }
        guard !user.blocked else { return .rejected(reason: "blocked", userID: user.userID) }
        let rehashed = PasswordHash.needsRehash(hash) ? try? PasswordHash.hash(password) : nil
        return .verified(user, rehashedPassword: rehashed, clearedThrottleKey: "")
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
        case .pairLocked:
            details["scope"] = "account"
            return SignInEvent(.loginThrottled, clientID: clientID, details: details)
        case .addressLocked:
            details["scope"] = "ip"
            return SignInEvent(.loginThrottled, clientID: clientID, details: details)
        }
    }
}
