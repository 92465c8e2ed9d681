import Crypto
import Foundation
import Model
import Testing
import TestSupport
@testable import Server

/// Login credential checks: one answer for every failure, and hashes upgraded at login.
@Suite struct PasswordAuthenticatorTests {
    let users = MemoryUserStore()
    let clock = FixedClock()
    var authenticator: PasswordAuthenticator { PasswordAuthenticator(users: users, clock: clock) }

    private func addUser(_ email: String, hash: String?, blocked: Bool = false) throws -> User {
        let user = User(userID: "auth0|\(email.hashValue.magnitude)", email: email, passwordHash: hash, blocked: blocked, createdAt: clock.now)
        try users.create(user)
        return user
    }

    @Test func theRightPasswordSucceedsAndCountsTheLogin() throws {
        let user = try addUser("a@example.com", hash: try PasswordHash.hash("right password"))
        #expect(try authenticator.authenticate(email: "A@Example.com", password: "right password") == .success(user))
        #expect(try users.find(userID: user.userID)?.loginsCount == 1)
    }

    @Test(arguments: [
        ("a@example.com", "wrong password", "wrong_password"),
        ("nobody@example.com", "right password", "unknown_email"),
        ("blocked@example.com", "right password", "blocked"),
        ("nopassword@example.com", "right password", "no_password"),
    ])
    func everyFailureIsTheSameOutcomeKind(email: String, password: String, reason: String) throws {
        _ = try addUser("a@example.com", hash: try PasswordHash.hash("right password"))
        _ = try addUser("blocked@example.com", hash: try PasswordHash.hash("right password"), blocked: true)
        _ = try addUser("nopassword@example.com", hash: nil)
        guard case .failure(let found, _) = try authenticator.authenticate(email: email, password: password) else {
            Issue.record("expected a failure")
            return
        }
        #expect(found == reason)
    }

    /// A hash with older (weaker) scrypt parameters is replaced at the next successful login.
    @Test func aWeakScryptHashIsUpgradedAtLogin() throws {
        let weak = try PasswordHash.hash("right password", parameters: ScryptParameters(logN: 12, r: 8, p: 1))
        let user = try addUser("a@example.com", hash: weak)
        _ = try authenticator.authenticate(email: user.email, password: "right password")
        let stored = try #require(try users.find(userID: user.userID)?.passwordHash)
        #expect(stored.hasPrefix("$scrypt$ln=15,r=8,p=1$"))
        #expect(PasswordHash.verify("right password", against: stored))
    }

    /// An imported bcrypt hash (Auth0 export) verifies, then moves to scrypt.
    @Test func anImportedBcryptHashMovesToScryptAtLogin() throws {
        // The Openwall crypt_blowfish test vector for "U*U".
        let user = try addUser("a@example.com", hash: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")
        #expect(try authenticator.authenticate(email: user.email, password: "U*U") == .success(user))
        let stored = try #require(try users.find(userID: user.userID)?.passwordHash)
        #expect(stored.hasPrefix("$scrypt$"))
        #expect(PasswordHash.verify("U*U", against: stored))
    }

    @Test func aFailedLoginNeverRehashes() throws {
        let weak = try PasswordHash.hash("right password", parameters: ScryptParameters(logN: 12, r: 8, p: 1))
        let user = try addUser("a@example.com", hash: weak)
        _ = try authenticator.authenticate(email: user.email, password: "wrong")
        #expect(try users.find(userID: user.userID)?.passwordHash == weak)
    }
}
