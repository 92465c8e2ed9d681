import Crypto
import Foundation
import Model
import Storage
import Testing
import TestSupport
@testable import OIDC

/// Brute-force protection that holds (negative-tests G02–G08): locked attempts are cheap and count,
/// a burst cannot outrun the limit, rotating addresses does not give unlimited guesses, and every
/// checked attempt takes the same time.
@Suite("Brute-force protection")
struct BruteForceTests {
    let clock = MutableClock(Fixture.epoch)
    let database = MemoryDatabase()
    let throttleStore = MemoryLoginThrottleStore()
    var users: TestSupport.MemoryUserStore { TestSupport.MemoryUserStore(database: database) }

    /// Records each pause instead of sleeping.
    final class Pauses: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [Duration] = []
        var all: [Duration] { lock.lock(); defer { lock.unlock() }; return recorded }
        func record(_ duration: Duration) { lock.lock(); recorded.append(duration); lock.unlock() }
    }

    func check(policy: LoginThrottle.Policy = .init(), pauses: Pauses? = nil) -> CredentialCheck {
        var check = CredentialCheck(users: users, throttle: LoginThrottle(store: throttleStore, clock: clock, policy: policy))
        if let pauses {
            check.floor = .seconds(10)
            check.pause = { pauses.record($0) }
        }
        return check
    }

    func addAlice() throws -> User {
        var alice = Fixture.alice
        alice.passwordHash = try PasswordHash.hash("right password", parameters: ScryptParameters(logN: 10, r: 8, p: 1))
        try users.create(alice)
        return alice
    }

    /// A locked pair is answered without hashing (no padding either: nothing was checked), and each
    /// such attempt counts towards its address, which reaches its 429 instead of hammering forever.
    @Test func lockedAttemptsAreCheapAndCountTowardsTheAddress() throws {
        let alice = try addAlice()
        let pauses = Pauses()
        var policy = LoginThrottle.Policy()
        policy.maxFailuresPerAddress = 30
        let check = check(policy: policy, pauses: pauses)
        for _ in 0..<10 {
            clock.advance(by: 5)
            _ = try check.check(email: alice.email, password: "wrong", ip: "198.51.100.7")
        }
        #expect(pauses.all.count == 10)
        var verdicts: [CredentialCheck.Verdict] = []
        for _ in 0..<25 {
            clock.advance(by: 1)
            verdicts.append(try check.check(email: alice.email, password: "right password", ip: "198.51.100.7"))
        }
        // 10 counted failures to the address, then one per locked attempt: the 30th locks it.
        #expect(pauses.all.count == 10, "a locked attempt hashed (it was padded)")
        #expect(verdicts.prefix(20).allSatisfy { if case .pairLocked(_, alice.userID) = $0 { true } else { false } })
        #expect(verdicts.suffix(5).allSatisfy { if case .addressLocked = $0 { true } else { false } })
        #expect(try users.find(userID: alice.userID)?.loginsCount == 0)
    }

    /// The check and the count are one step: of 20 concurrent attempts with a limit of 2, only 2 may
    /// hash a password (SQLite, two connections' worth of writers racing).
    @Test func aConcurrentBurstCannotOutrunTheLimit() throws {
        let (store, directory) = try makeTestStore()
        defer { withExtendedLifetime(directory) { store.close() } }
        var policy = LoginThrottle.Policy()
        policy.maxFailures = 2
        let throttle = LoginThrottle(store: SQLiteLoginThrottleStore(store: store), clock: clock, policy: policy)
        let granted = Collected<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            if (try? throttle.reserve(email: "alice@example.com", ip: "198.51.100.7")) == .granted { granted.withLock { $0 += 1 } }
        }
        #expect(granted.withLock { $0 } == 2)
    }

    /// Rotating addresses: past `accountFailures` failures from anywhere, each attempt on the account
    /// waits 1 s, 2 s, 4 s … up to the cap — and the real user gets in once the wait is over.
    @Test func rotatingAddressesIsSlowedPerAccount() throws {
        let alice = try addAlice()
        var policy = LoginThrottle.Policy()
        policy.accountFailures = 3
        policy.accountMaxDelay = 4
        let check = check(policy: policy)
        for index in 0..<3 {
            clock.advance(by: 5)
            _ = try check.check(email: alice.email, password: "wrong", ip: "203.0.113.\(index)")
        }
        #expect(try check.check(email: alice.email, password: "wrong", ip: "192.0.2.1") == .accountDelayed(retryAfter: 1, userID: alice.userID))
        var waits: [Int] = []
        for index in 0..<4 {
            clock.advance(by: 60)
            _ = try check.check(email: alice.email, password: "wrong", ip: "192.0.2.\(10 + index)")
            if case .accountDelayed(let wait, _) = try check.check(email: alice.email, password: "x", ip: "192.0.2.99") { waits.append(wait) }
        }
        #expect(waits == [2, 4, 4, 4])
        clock.advance(by: 5)
        guard case .verified = try check.check(email: alice.email, password: "right password", ip: "198.51.100.7") else {
            Issue.record("the real user stayed locked out"); return
        }
        // Another account is untouched throughout.
        #expect(try throttleStore.state(key: LoginThrottle.accountKey(email: "bob@example.com")) == nil)
    }

    /// One IPv6 /64 is one address: failures anywhere in it lock all of it, and nothing outside it.
    @Test func anIPv6PrefixCountsAsOneAddress() throws {
        var policy = LoginThrottle.Policy()
        policy.maxFailuresPerAddress = 5
        let throttle = LoginThrottle(store: throttleStore, clock: clock, policy: policy)
        for index in 0..<5 {
            clock.advance(by: 2)
            try throttle.recordFailure(email: "u\(index)@example.com", ip: "2001:db8:1:2::\(index + 1)")
        }
        #expect(try throttle.reserve(email: "v@example.com", ip: "2001:db8:1:2:ffff::9") == .addressLocked(retryAfter: 900))
        #expect(try throttle.reserve(email: "v@example.com", ip: "2001:db8:1:3::1") == .granted)
        #expect(try throttle.reserve(email: "v@example.com", ip: "198.51.100.7") == .granted)
    }

    @Test(arguments: [
        ("2001:db8:1:2::1", 64, "2001:db8:1:2::/64"),
        ("2001:DB8:0001:0002:aaaa:bbbb:cccc:dddd", 64, "2001:db8:1:2::/64"),
        ("2001:db8::1", 48, "2001:db8::/48"),
        ("fe80::1%eth0", 64, "fe80::/64"),
        ("::ffff:192.0.2.1", 96, "::ffff:0:0/96"),
        ("2001:db8:1:2:3:4:5:6", 128, "2001:db8:1:2:3:4:5:6"),
        ("198.51.100.7", 64, "198.51.100.7"),
        ("2001:db8:::1", 64, "2001:db8:::1"),
        ("1:2:3:4:5:6:7:8:9", 64, "1:2:3:4:5:6:7:8:9"),
        ("2001:db8::12345", 64, "2001:db8::12345"),
    ])
    func addressGroups(address: String, prefix: Int, expected: String) {
        #expect(IPAddressGroup.group(address, ipv6PrefixLength: prefix) == expected)
    }

    /// Every checked attempt is padded to the floor — an unknown email, a wrong password, a cheap
    /// imported bcrypt hash — so none answers faster than another (G07).
    @Test func everyCheckedAttemptIsPaddedToTheFloor() throws {
        _ = try addAlice()
        var bcryptUser = Fixture.bob
        // The Openwall crypt_blowfish test vector for "U*U", cost 5.
        bcryptUser.passwordHash = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        try users.create(bcryptUser)
        let pauses = Pauses()
        let check = check(pauses: pauses)
        for (email, password) in [("nobody@example.com", "x"), (Fixture.alice.email, "wrong"), (bcryptUser.email, "wrong"),
                                  (bcryptUser.email, "U*U")] {
            clock.advance(by: 5)
            _ = try check.check(email: email, password: password, ip: "198.51.100.\(email.count)")
        }
        #expect(pauses.all.count == 4)
        #expect(pauses.all.allSatisfy { $0 > .seconds(9) && $0 <= .seconds(10) })
    }

    /// The password grants say what happened, in Auth0's codes.
    @Test func thePasswordGrantsAnswerInAuth0Codes() throws {
        let harness = try ScopeAndAudienceTests.PasswordHarness()
        var blocked = try #require(try harness.users.find(userID: Fixture.alice.userID))
        blocked.blocked = true
        try harness.users.update(blocked)
        var context = RequestContext(clientIP: "198.51.100.7")
        do {
            _ = try harness.login(audience: nil, context: &context)
            Issue.record("a blocked user got tokens")
        } catch {
            #expect(error.code == .unauthorized && error.description == "user is blocked" && error.httpStatus == 401)
        }
        blocked.blocked = false
        try harness.users.update(blocked)
        let throttle = LoginThrottle(store: harness.throttle, clock: harness.clock)
        for _ in 0..<10 {
            harness.clock.advance(by: 5)
            try throttle.recordFailure(email: Fixture.alice.email, ip: "198.51.100.7")
        }
        do {
            _ = try harness.login(audience: nil, context: &context)
            Issue.record("a locked pair got tokens")
        } catch {
            #expect(error.code == .tooManyAttempts && error.httpStatus == 429)
            #expect(error.description == "Your account has been blocked after multiple consecutive login attempts. Try again in 15 minutes.")
        }
        #expect(context.events.last?.kind == .loginThrottled && context.events.last?.userID == Fixture.alice.userID)
    }
}
