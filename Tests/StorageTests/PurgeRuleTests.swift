import Foundation
import Model
import SQLite
import Storage
import Testing
import TestSupport

/// Every retention rule, against SQLite at a fixed instant: each case seeds a row just past its
/// rule's boundary (deleted) and one just short of it (kept). Without the purge nothing is deleted.
@Suite struct PurgeRuleTests {
    struct Expect: Sendable {
        let table: String
        let column: String
        let key: SQLValue
        let survives: Bool

        static func gone(_ table: String, _ column: String, _ key: String) -> Expect { Expect(table: table, column: column, key: .text(key), survives: false) }
        static func kept(_ table: String, _ column: String, _ key: String) -> Expect { Expect(table: table, column: column, key: .text(key), survives: true) }
        static func family(_ id: String, generations: Int = 3, survives: Bool) -> [Expect] {
            [Expect(table: "grants", column: "grant_id", key: .text(id), survives: survives)]
                + (0..<generations).map { Expect(table: "refresh_tokens", column: "token_hash", key: .text("\(id)-rt\($0)"), survives: survives) }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var accessTokenLifetime = 3600
        var policy = RetentionPolicy()
        let seed: @Sendable (PurgeFixture) throws -> Void
        let expect: [Expect]
        var testDescription: String { name }
    }

    static let n = PurgeFixture.now
    static let day = PurgeFixture.day
    static let hour: Int64 = 3600

    static let cases: [Case] = [
        Case(name: "login transactions go at expiry", seed: { f in
            try f.transaction("tx-due", expires: n)
            try f.transaction("tx-live", expires: n + 1)
        }, expect: [.gone("login_transactions", "id_hash", "tx-due"), .kept("login_transactions", "id_hash", "tx-live")]),

        Case(name: "unredeemed codes go at expiry", seed: { f in
            try f.code("code-due", expires: n)
            try f.code("code-live", expires: n + 1)
        }, expect: [.gone("authorization_codes", "code_hash", "code-due"), .kept("authorization_codes", "code_hash", "code-live")]),

        Case(name: "redeemed codes stay 10 minutes past expiry for replay detection", seed: { f in
            try f.code("code-due", expires: n - 600, used: n - 630)
            try f.code("code-replayable", expires: n - 599, used: n - 630)
        }, expect: [.gone("authorization_codes", "code_hash", "code-due"), .kept("authorization_codes", "code_hash", "code-replayable")]),

        Case(name: "a family goes a day after its absolute expiry", seed: { f in
            try f.family("g-due", created: n - 31 * day, step: 14 * day, expires: n - day)
            try f.family("g-live", created: n - 31 * day, step: 14 * day, expires: n - day + 1)
        }, expect: Expect.family("g-due", survives: false) + Expect.family("g-live", survives: true)),

        Case(name: "a family goes a day after its newest token went idle", seed: { f in
            try f.family("g-due", created: n - 16 * day - 2 * hour, step: hour, expires: n + 10 * day)
            try f.family("g-live", created: n - 16 * day - 2 * hour + 1, step: hour, expires: n + 10 * day)
        }, expect: Expect.family("g-due", survives: false) + Expect.family("g-live", survives: true)),

        Case(name: "a revoked family goes a day after its revocation", seed: { f in
            try f.family("g-due", created: n - 5 * day, expires: n + 20 * day, revoked: n - day, grantRevoked: n - day)
            try f.family("g-live", created: n - 5 * day, expires: n + 20 * day, revoked: n - day + 1, grantRevoked: n - day + 1)
        }, expect: Expect.family("g-due", survives: false) + Expect.family("g-live", survives: true)),

        Case(name: "a family whose newest token is revoked goes a day after the revocation", seed: { f in
            try f.family("g-due", created: n - 3 * day, expires: n + 20 * day, revoked: n - day)
            try f.family("g-live", created: n - 3 * day, expires: n + 20 * day, revoked: n - day + 1)
        }, expect: Expect.family("g-due", survives: false) + Expect.family("g-live", survives: true)),

        Case(name: "a family stays while its last access token is valid", accessTokenLifetime: 10 * 86_400, seed: { f in
            // Refresh died 5 days ago; the last access token (issued with the newest token) lives 10 days.
            try f.family("g-due", created: n - 12 * day - 2 * hour, step: hour, expires: n - 5 * day)
            try f.family("g-live", created: n - 11 * day - 2 * hour, step: hour, expires: n - 5 * day)
        }, expect: Expect.family("g-due", survives: false) + Expect.family("g-live", survives: true)),

        Case(name: "a grant without refresh tokens goes once its access tokens expired, plus a day", seed: { f in
            // 3600 s access tokens, 60 s retry margin, one day's grace.
            try f.grant("plain-due", created: n - day - 3660)
            try f.grant("plain-live", created: n - day - 3659)
        }, expect: [.gone("grants", "grant_id", "plain-due"), .kept("grants", "grant_id", "plain-live")]),

        Case(name: "a grant waits for the longest lifetime its application has had", seed: { f in
            // Lowered from a day to a minute: tokens minted before still live a day (migration 0020).
            try f.run("UPDATE clients SET access_token_lifetime = 86400 WHERE client_id = ?", [.text(f.clientID)])
            try f.run("UPDATE clients SET access_token_lifetime = 60 WHERE client_id = ?", [.text(f.clientID)])
            try f.grant("plain-due", created: n - day - 86_460)
            try f.grant("plain-live", created: n - day - 86_459)
        }, expect: [.gone("grants", "grant_id", "plain-due"), .kept("grants", "grant_id", "plain-live")]),

        Case(name: "a machine grant lives as long as its API's tokens", seed: { f in
            try f.api("https://api.example", lifetime: 600)
            try f.grant("m2m-due", created: n - day - 660, machine: true, audience: "https://api.example")
            try f.grant("m2m-live", created: n - day - 659, machine: true, audience: "https://api.example")
            // An API deleted since: the longest access-token lifetime (30 days) applies.
            try f.grant("m2m-orphan", created: n - 2 * day, machine: true, audience: "https://gone.example")
        }, expect: [.gone("grants", "grant_id", "m2m-due"), .kept("grants", "grant_id", "m2m-live"),
                    .kept("grants", "grant_id", "m2m-orphan")]),

        Case(name: "a grant younger than any code naming it is kept even with no grace", policy: {
            var policy = RetentionPolicy()
            policy.familyGrace = 0
            return policy
        }(), seed: { f in
            try f.grant("young", created: n - 1199, revoked: n - 100)
            try f.grant("old-enough", created: n - 1200, revoked: n - 100)
        }, expect: [.kept("grants", "grant_id", "young"), .gone("grants", "grant_id", "old-enough")]),

        Case(name: "ended sessions stay a week", seed: { f in
            try f.session("s-due", expires: n + day, ended: n - 7 * day)
            try f.session("s-live", expires: n + day, ended: n - 7 * day + 1)
        }, expect: [.gone("sessions", "session_id", "s-due"), .kept("sessions", "session_id", "s-live")]),

        Case(name: "expired sessions stay a week", seed: { f in
            try f.session("s-due", expires: n - 7 * day)
            try f.session("s-live", expires: n - 7 * day + 1)
        }, expect: [.gone("sessions", "session_id", "s-due"), .kept("sessions", "session_id", "s-live")]),

        Case(name: "a session stays while a grant refers to it, and goes with its last family", seed: { f in
            try f.session("s-held", expires: n - 30 * day, ended: n - 30 * day)
            try f.family("g-held", created: n - 31 * day, step: 14 * day, expires: n + 20 * day, session: "s-held")
            try f.session("s-freed", expires: n - 30 * day, ended: n - 30 * day)
            try f.family("g-dead", created: n - 31 * day, expires: n + 20 * day, revoked: n - 2 * day,
                         grantRevoked: n - 2 * day, session: "s-freed")
        }, expect: [.kept("sessions", "session_id", "s-held"), .gone("sessions", "session_id", "s-freed")]
            + Expect.family("g-held", survives: true) + Expect.family("g-dead", survives: false)),

        Case(name: "throttle rows go once their window and lock are over", seed: { f in
            try f.throttle("pair:due", windowStarted: n - 12 * hour)
            try f.throttle("pair:counting", windowStarted: n - 12 * hour + 1)
            try f.throttle("ip:locked", windowStarted: n - 13 * hour, lockedUntil: n + 60)
            try f.throttle("ip:unlocked", windowStarted: n - 13 * hour, lockedUntil: n)
        }, expect: [.gone("login_throttle", "key", "pair:due"), .kept("login_throttle", "key", "pair:counting"),
                    .kept("login_throttle", "key", "ip:locked"), .gone("login_throttle", "key", "ip:unlocked")]),

        Case(name: "audit events go after the retention period", seed: { f in
            try f.audit(1, time: n - 30 * day - 1)
            try f.audit(2, time: n - 30 * day)
        }, expect: [Expect(table: "audit_events", column: "id", key: .integer(1), survives: false),
                    Expect(table: "audit_events", column: "id", key: .integer(2), survives: true)]),

        Case(name: "audit retention follows audit_retention", policy: RetentionPolicy(auditRetention: 3600), seed: { f in
            try f.audit(1, time: n - 3601)
            try f.audit(2, time: n - 3600)
        }, expect: [Expect(table: "audit_events", column: "id", key: .integer(1), survives: false),
                    Expect(table: "audit_events", column: "id", key: .integer(2), survives: true)]),

        Case(name: "revoked access tokens are forgotten once expired", seed: { f in
            try f.revokedAccessToken("jti-due", expires: n)
            try f.revokedAccessToken("jti-live", expires: n + 1)
        }, expect: [.gone("revoked_access_tokens", "jti", "jti-due"), .kept("revoked_access_tokens", "jti", "jti-live")]),

        Case(name: "revoked grants are forgotten once their access tokens have expired", seed: { f in
            try f.revokedGrant("grant-due", expires: n)
            try f.revokedGrant("grant-live", expires: n + 1)
        }, expect: [.gone("revoked_grants", "grant_id", "grant-due"), .kept("revoked_grants", "grant_id", "grant-live")]),
    ]

    @Test(arguments: cases, TestBackend.available)
    func rule(_ rule: Case, _ backend: TestBackend) throws {
        let fixture = try PurgeFixture(backend, accessTokenLifetime: rule.accessTokenLifetime)
        try rule.seed(fixture)
        for expectation in rule.expect {
            #expect(try fixture.exists(expectation.table, expectation.column, expectation.key), "seeding \(expectation.key)")
        }
        let due = try Purger(store: fixture.storage).dueCounts(rule.policy, at: Date(timeIntervalSince1970: TimeInterval(Self.n)))
        let report = try fixture.purge(rule.policy)
        for expectation in rule.expect {
            let present = try fixture.exists(expectation.table, expectation.column, expectation.key)
            #expect(present == expectation.survives,
                    "\(expectation.table) \(expectation.key): \(present ? "kept" : "deleted"), expected \(expectation.survives ? "kept" : "deleted")")
        }
        // What `db stats` calls due is what the run deleted; a session freed by this run's family
        // purge is not due until then.
        for table in PurgeTable.allCases {
            let (counted, deleted) = (due[table, default: 0], report.deleted[table, default: 0])
            #expect(table == .sessions ? counted <= deleted : counted == deleted, "\(table.rawValue): due \(counted), deleted \(deleted)")
        }
        // A second run at the same instant finds nothing more.
        #expect(try fixture.purge(rule.policy).total == 0)
        #expect(try fixture.isIntact())
    }
}
