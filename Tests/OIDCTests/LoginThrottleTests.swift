import Foundation
import Model
import Storage
import Testing
import TestSupport
@testable import OIDC

/// Brute-force protection rules (negative-tests G02–G08), with a clock we move by hand.
@Suite struct LoginThrottleTests {
    let clock = MutableClock()
    let directory: TemporaryDirectory
    let store: Store

    init() throws {
        directory = try TemporaryDirectory("throttle")
        store = try Store(path: directory.file("idp.sqlite3"))
    }

    private func throttle(_ backend: String) -> LoginThrottle {
        LoginThrottle(store: backend == "sqlite" ? SQLiteLoginThrottleStore(store: store) as any LoginThrottleStore : MemoryLoginThrottleStore(),
                      clock: clock)
    }

    /// Fails `count` times, a few seconds apart (slower than the quick-lock rule).
    private func fail(_ throttle: LoginThrottle, _ count: Int, email: String = "a@example.com", ip: String = "198.51.100.7") throws {
        for _ in 0..<count {
            clock.advance(by: 5)
            try throttle.recordFailure(email: email, ip: ip)
        }
    }

    /// G02: ten failures lock that email from that address only.
    @Test(arguments: ["sqlite", "memory"])
    func tenFailuresLockThePairButNotOtherAddresses(backend: String) throws {
        let throttle = throttle(backend)
        try fail(throttle, 9)
        #expect(try throttle.check(email: "a@example.com", ip: "198.51.100.7") == .allowed)
        try fail(throttle, 1)
        #expect(try throttle.check(email: "a@example.com", ip: "198.51.100.7") == .pairLocked)
        #expect(try throttle.check(email: "A@Example.com", ip: "198.51.100.7") == .pairLocked)
        #expect(try throttle.check(email: "a@example.com", ip: "203.0.113.9") == .allowed)
        #expect(try throttle.check(email: "b@example.com", ip: "198.51.100.7") == .allowed)
        clock.advance(by: 15 * 60 + 1)
        #expect(try throttle.check(email: "a@example.com", ip: "198.51.100.7") == .allowed)
    }

    /// G04: two failures less than a second apart lock for a minute.
    @Test(arguments: ["sqlite", "memory"])
    func twoQuickFailuresLockBriefly(backend: String) throws {
        let throttle = throttle(backend)
        try throttle.recordFailure(email: "a@example.com", ip: "198.51.100.7")
        clock.advance(by: 0.4)
        try throttle.recordFailure(email: "a@example.com", ip: "198.51.100.7")
        #expect(try throttle.check(email: "a@example.com", ip: "198.51.100.7") == .pairLocked)
        clock.advance(by: 61)
        #expect(try throttle.check(email: "a@example.com", ip: "198.51.100.7") == .allowed)
    }

    /// G05: many emails from one address → 429 with Retry-After.
    @Test(arguments: ["sqlite", "memory"])
    func manyEmailsFromOneAddressAreThrottled(backend: String) throws {
        let throttle = throttle(backend)
        for index in 0..<100 { try fail(throttle, 1, email: "user\(index)@example.com") }
        guard case .addressLocked(let retryAfter) = try throttle.check(email: "new@example.com", ip: "198.51.100.7") else {
            Issue.record("expected the address to be locked")
            return
        }
        #expect(retryAfter > 0 && retryAfter <= 15 * 60)
        #expect(try throttle.check(email: "new@example.com", ip: "203.0.113.9") == .allowed)
    }

    /// G08: a success resets the count; failures expire after 12 hours.
    @Test(arguments: ["sqlite", "memory"])
    func successResetsAndOldFailuresExpire(backend: String) throws {
        let throttle = throttle(backend)
        try fail(throttle, 9)
        try throttle.recordSuccess(email: "a@example.com", ip: "198.51.100.7")
        try fail(throttle, 9)
        #expect(try throttle.check(email: "a@example.com", ip: "198.51.100.7") == .allowed)
        clock.advance(by: 12 * 3600 + 1)
        try fail(throttle, 9)
        #expect(try throttle.check(email: "a@example.com", ip: "198.51.100.7") == .allowed)
    }

    /// G08: a lock is in SQLite, so a restart (a new throttle and store) keeps it.
    @Test func aLockSurvivesARestart() throws {
        try fail(throttle("sqlite"), 10)
        store.close()
        let reopened = try Store(path: directory.file("idp.sqlite3"))
        defer { reopened.close() }
        let restarted = LoginThrottle(store: SQLiteLoginThrottleStore(store: reopened), clock: clock)
        #expect(try restarted.check(email: "a@example.com", ip: "198.51.100.7") == .pairLocked)
    }
}
