import Crypto
import Model

/// Everything a newly chosen password must pass: the strength level, the blocklist, and the
/// optional history (no reuse of the last `historySize` passwords).
public struct PasswordRules: Sendable {
    public var policy: PasswordPolicy
    public var blocklist: PasswordBlocklist
    /// Earlier passwords a new one may not repeat; 0 turns the rule off.
    public var historySize: Int

    public init(policy: PasswordPolicy = .fair, blocklist: PasswordBlocklist = PasswordBlocklist(entries: []), historySize: Int = 0) {
        self.policy = policy
        self.blocklist = blocklist
        self.historySize = historySize
    }

    /// The first rule `password` breaks, strength first; nil when it may be used.
    public func refusal(_ password: String, email: String?) -> AccountError? {
        let unmet = policy.unmetRules(password)
        if !unmet.isEmpty { return .weakPassword(unmet) }
        if blocklist.refuses(password, email: email) { return .leakedPassword }
        return nil
    }

    /// Whether the password repeats the current one or one of the remembered ones.
    public func repeatsHistory(_ password: String, current: String?, history: [String]) -> Bool {
        guard historySize > 0 else { return false }
        return ([current].compactMap { $0 } + history.prefix(historySize)).contains { PasswordHash.verify(password, against: $0) }
    }
}
