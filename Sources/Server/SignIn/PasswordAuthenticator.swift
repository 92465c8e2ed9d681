import Crypto
import Model

/// Checks an email and password. Unknown emails, wrong passwords and blocked users all
/// fail the same way and take the same time: an unknown email is checked against a
/// dummy hash, so the reply never tells whether an account exists (negative-tests G07).
struct PasswordAuthenticator: Sendable {
    let users: any UserStore
    let clock: any Clock
    /// A hash of a random password, with today's parameters, verified for unknown users.
    private let dummyHash: String

    init(users: any UserStore, clock: any Clock) {
        self.users = users
        self.clock = clock
        // Hashing cannot fail with the default parameters short of OpenSSL being broken.
        dummyHash = (try? PasswordHash.hash(Random.token(bytes: 16))) ?? "$scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    }

    enum Outcome: Equatable {
        case success(User)
        /// Wrong email or password, or a blocked user: one answer for all.
        case failure(reason: String, userID: String?)
    }

    func authenticate(email: String, password: String) throws(StorageError) -> Outcome {
        let user = try users.find(email: email)
        guard let user, let hash = user.passwordHash else {
            _ = PasswordHash.verify(password, against: dummyHash)
            return .failure(reason: user == nil ? "unknown_email" : "no_password", userID: user?.userID)
        }
        let verified = PasswordHash.verify(password, against: hash)
        guard verified else { return .failure(reason: "wrong_password", userID: user.userID) }
        guard !user.blocked else { return .failure(reason: "blocked", userID: user.userID) }
        // Old scrypt parameters or an imported bcrypt hash move to today's scrypt now that we know the password.
        let rehashed = PasswordHash.needsRehash(hash) ? try? PasswordHash.hash(password) : nil
        try users.recordLogin(userID: user.userID, at: clock.now, rehashedPassword: rehashed)
        return .success(user)
    }
}
