import Crypto
import FoundationEssentials
import Model

/// Issues and checks the six-digit codes (and reset links) sent by email. A code is stored as
/// HMAC-SHA256 under a server key over its purpose, address and digits, so a stolen database does
/// not give the codes away by trying all million of them; a link token is 256 random bits and
/// stored as SHA-256 (README "Accounts").
public struct OneTimeCodes: Sendable {
    public let store: any OneTimeCodeStore
    private let key: [UInt8]
    public let clock: any Clock
    /// How long a code stays good (about 10 minutes).
    public var lifetime: TimeInterval
    /// Wrong tries before the code dies.
    public var maxAttempts: Int

    public init(store: any OneTimeCodeStore, key: [UInt8], clock: any Clock, lifetime: TimeInterval = 600, maxAttempts: Int = 5) {
        self.store = store
        self.key = key
        self.clock = clock
        self.lifetime = lifetime
        self.maxAttempts = maxAttempts
    }

    /// A new code replacing any live one of this purpose and address; with `link`, also a link token.
    public func issue(_ purpose: OneTimeCode.Purpose, email: String, clientID: String?,
                      link: Bool = false) throws(StorageError) -> (code: String, linkToken: String?) {
        let emailKey = User.emailKey(email)
        let code = Self.sixDigits()
        let linkToken = link ? Random.token(bytes: 32) : nil
        let now = clock.now
        try store.issue(OneTimeCode(purpose: purpose, emailKey: emailKey, codeHash: digest(purpose, emailKey: emailKey, code: code),
                                    linkHash: linkToken.map(SecretDigest.hash), clientID: clientID, createdAt: now,
                                    expiresAt: now.addingTimeInterval(lifetime)))
        return (code, linkToken)
    }

    /// One try of a typed code. Spaces and dashes people type between digit groups are ignored.
    public func attempt(_ purpose: OneTimeCode.Purpose, email: String, code: String) throws(StorageError) -> CodeAttempt {
        let digits = code.filter { $0 != " " && $0 != "-" }
        let emailKey = User.emailKey(email)
        return try store.attempt(purpose, emailKey: emailKey, codeHash: digest(purpose, emailKey: emailKey, code: digits),
                                 maxAttempts: maxAttempts, at: clock.now)
    }

    /// Consumes the reset link's code: a link works once, in any browser.
    public func redeemLink(_ token: String) throws(StorageError) -> OneTimeCode? {
        guard !token.isEmpty, token.utf8.count <= 128 else { return nil }
        return try store.redeemLink(linkHash: SecretDigest.hash(token), at: clock.now)
    }

    /// The code a link token belongs to, still live and unconsumed.
    public func findLink(_ token: String) throws(StorageError) -> OneTimeCode? {
        guard !token.isEmpty, token.utf8.count <= 128 else { return nil }
        return try store.findLink(linkHash: SecretDigest.hash(token), at: clock.now)
    }

    /// The live code's record (its link's address, before a reset page is shown).
    public func live(_ purpose: OneTimeCode.Purpose, email: String) throws(StorageError) -> OneTimeCode? {
        try store.find(purpose, emailKey: User.emailKey(email), at: clock.now)
    }

    func digest(_ purpose: OneTimeCode.Purpose, emailKey: String, code: String) -> String {
        let message = Array("\(purpose.rawValue)\u{0}\(emailKey)\u{0}\(code)".utf8)
        return Base64URL.encode(HMAC.sha256(key: key, data: message))
    }

    /// Six decimal digits, uniformly: 32-bit draws above the largest multiple of a million are redrawn.
    static func sixDigits() -> String {
        let bound: UInt32 = 4_294_000_000  // 4294 × 10⁶ ≤ 2³²
        while true {
            let bytes = Random.bytes(4)
            let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if value < bound {
                let number = String(value % 1_000_000)
                return String(repeating: "0", count: 6 - number.count) + number
            }
        }
    }
}
