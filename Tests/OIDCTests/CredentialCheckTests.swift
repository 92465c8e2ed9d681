import Crypto
import Foundation
import Model
import Testing
import TestSupport
@testable import OIDC

/// Login credential checks: one answer for every failure, and hashes upgraded by the login's commit.
@Suite struct CredentialCheckTests {
    let database = MemoryDatabase()
    let throttleStore = MemoryLoginThrottleStore()
    let clock = FixedClock()
    var users: TestSupport.MemoryUserStore { TestSupport.MemoryUserStore(database: database) }
    var check: CredentialCheck { CredentialCheck(users: users, throttle: LoginThrottle(store: throttleStore, clock: clock)) }
    var signIns: MemorySignInStore { MemorySignInStore(database: database, throttle: throttleStore) }

    private func addUser(_ email: String, hash: String?, blocked: Bool = false) throws -> User {
        let user = User(userID: "auth0|\(email.hashValue.magnitude)", email: email, passwordHash: hash, blocked: blocked, createdAt: clock.now)
        try users.create(user)
        return user
    }

    /// Checks the password and, on success, commits the login as the flow and the password grants do.
    private func login(_ email: String, _ password: String) throws -> CredentialCheck.Verdict {
        let verdict = try check.check(email: email, password: password, ip: "198.51.100.7")
        if case .verified(let user, let rehashed, let key) = verdict {
            try signIns.completeLogin(LoginCompletion(userID: user.userID, time: clock.now, rehashedPassword: rehashed,
                                                      clearedThrottleKeys: [key]))
        }
        return verdict
    }

    @Test func theRightPasswordSucceedsAndCountsTheLogin() throws {
        let user = try addUser("a@example.com", hash: try PasswordHash.hash("right password"))
        guard case .verified(let found, nil, let key) = try login("A@Example.com", "right password") else {
            Issue.record("expected a verified login"); return
        }
        #expect(found == user)
        #expect(key == LoginThrottle.pairKey(email: "a@example.com", ip: "198.51.100.7"))
        #expect(try users.find(userID: user.userID)?.loginsCount == 1)
    }

    @Test(arguments: [
        ("a@example.com", "wrong password", "wrong_password"),
        ("nobody@example.com", "right password", "unknown_email"),
        ("nopassword@example.com", "right password", "no_password"),
    ])
    func everyFailureIsTheSameOutcomeKind(email: String, password: String, reason: String) throws {
        _ = try addUser("a@example.com", hash: try PasswordHash.hash("right password"))
        _ = try addUser("blocked@example.com", hash: try PasswordHash.hash("right password"), blocked: true)
        _ = try addUser("nopassword@example.com", hash: nil)
        guard case .rejected(let found, _) = try login(email, password) else {
            Issue.record("expected a failure")
            return
        }
        #expect(found == reason)
        // Every failure counts towards the pair's lock.
        #expect(try throttleStore.state(key: LoginThrottle.pairKey(email: email, ip: "198.51.100.7"))?.failures == 1)
    }

    /// A blocked user learns it only with the right password; a wrong one is the ordinary failure.
    @Test func aBlockedUserIsToldOnlyWithTheRightPassword() throws {
        let user = try addUser("blocked@example.com", hash: try PasswordHash.hash("right password"), blocked: true)
        #expect(try login(user.email, "right password") == .blocked(user))
        guard case .rejected("wrong_password", _) = try login(user.email, "wrong") else { Issue.record("expected a failure"); return }
        #expect(try users.find(userID: user.userID)?.loginsCount == 0)
    }

    /// A scrypt hash of an earlier release is replaced by Argon2id at the next successful login.
    @Test func aScryptHashMovesToArgon2idAtLogin() throws {
        let weak = try PasswordHash.hash("right password", parameters: ScryptParameters(logN: 12, r: 8, p: 1))
        let user = try addUser("a@example.com", hash: weak)
        _ = try login(user.email, "right password")
        let stored = try #require(try users.find(userID: user.userID)?.passwordHash)
        #expect(stored.hasPrefix("$argon2id$v=19$m=7168,t=5,p=1$"))
        #expect(PasswordHash.verify("right password", against: stored))
    }

    /// An Argon2id hash with fewer passes than today's is replaced; one with today's parameters is kept.
    @Test func aWeakerArgon2idHashIsUpgradedAtLogin() throws {
        let weak = try PasswordHash.hash("right password", parameters: Argon2Parameters(memoryKiB: 7168, iterations: 2, parallelism: 1))
        let user = try addUser("a@example.com", hash: weak)
        _ = try login(user.email, "right password")
        let stored = try #require(try users.find(userID: user.userID)?.passwordHash)
        #expect(stored != weak && stored.hasPrefix("$argon2id$v=19$m=7168,t=5,p=1$"))
        guard case .verified(_, let rehashed, _) = try login(user.email, "right password") else {
            Issue.record("expected a verified login"); return
        }
        #expect(rehashed == nil)
    }

    /// An imported bcrypt hash (Auth0 export) verifies, then moves to Argon2id.
    @Test func anImportedBcryptHashMovesToArgon2idAtLogin() throws {
        // The Openwall crypt_blowfish test vector for "U*U".
        let user = try addUser("a@example.com", hash: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")
        guard case .verified(let found, let rehashed?, _) = try login(user.email, "U*U") else {
            Issue.record("expected a verified login with a rehash"); return
        }
        #expect(found == user)
        #expect(rehashed.hasPrefix("$argon2id$"))
        let stored = try #require(try users.find(userID: user.userID)?.passwordHash)
        #expect(stored.hasPrefix("$argon2id$"))
        #expect(PasswordHash.verify("U*U", against: stored))
    }

    @Test func aFailedLoginNeverRehashes() throws {
        let weak = try PasswordHash.hash("right password", parameters: ScryptParameters(logN: 12, r: 8, p: 1))
        let user = try addUser("a@example.com", hash: weak)
        _ = try login(user.email, "wrong")
        #expect(try users.find(userID: user.userID)?.passwordHash == weak)
    }

    /// A locked pair refuses even the right password, and the lock is not lifted by it (G03); the
    /// answer says so (Auth0's "account blocked") instead of pretending the password was wrong.
    @Test func aLockedPairRejectsTheRightPassword() throws {
        let user = try addUser("a@example.com", hash: try PasswordHash.hash("right password"))
        for _ in 0..<10 { _ = try check.check(email: user.email, password: "wrong", ip: "198.51.100.7") }
        // Ten failures in one instant: the quick-lock rule (two failures under a second apart) locks for a minute.
        #expect(try check.check(email: user.email, password: "right password", ip: "198.51.100.7")
                == .pairLocked(retryAfter: 60, userID: user.userID))
        #expect(try users.find(userID: user.userID)?.loginsCount == 0)
    }
}
