import Foundation
import SQLite
import Storage
import Testing
import TestSupport

/// The statements that read, on a reader, what a purge or deletion batch is about to change
/// (`ColdPages`): each must reach every index entry by a seek, never a scan (a scan would read
/// the whole table to warm one row), and must keep naming indexes that exist (`INDEXED BY` an
/// index a migration dropped fails, and with it every purge).
@Suite struct ColdPagesTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let statement: @Sendable (SQLDialect) -> String?
        let key: SQLValue
        /// Index names the plan must seek.
        let indexes: [String]
        /// Parameters after the key (the user's pseudonym).
        var more: [SQLValue] = []
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a grant", statement: ColdPages.grant, key: .text("grant-1"),
             indexes: ["grants_by_user", "grants_by_session", "session_transfer_tokens_by_grant", "sessions_by_parent_grant"]),
        Case(name: "an audit event", statement: ColdPages.auditEvent, key: .integer(7), indexes: ["audit_events_by_user"]),
        Case(name: "a user", statement: ColdPages.user, key: .text("auth0|purge"),
             indexes: ["users_by_creation", "users_by_email_lookup", "sessions_by_user", "authorization_codes_by_user",
                       "identities_by_user", "session_transfer_tokens_by_user", "audit_events_by_user"],
             more: [.text("deleted|pseudonym")]),
        Case(name: "a live session", statement: ColdPages.session, key: .text("session-live"),
             indexes: ["sessions_by_user", "sessions_live_by_expiry", "authorization_codes_by_session"]),
        Case(name: "an ended session", statement: ColdPages.session, key: .text("session-ended"),
             indexes: ["sessions_by_user", "authorization_codes_by_session"]),
    ]

    static func fixture() throws -> PurgeFixture {
        let fixture = try PurgeFixture()
        try fixture.session("session-live", expires: PurgeFixture.now + PurgeFixture.day)
        try fixture.session("session-ended", expires: PurgeFixture.now + PurgeFixture.day, ended: PurgeFixture.now)
        try fixture.oneRowFamily("grant-1", created: PurgeFixture.now - PurgeFixture.day, rotated: nil, expires: PurgeFixture.now)
        try fixture.audit(7, time: PurgeFixture.now)
        return fixture
    }

    @Test(arguments: cases) func seeksEveryEntryItWarmsAndRunsOnTheSchema(_ test: Case) throws {
        let fixture = try Self.fixture()
        let sql = try #require(test.statement(.sqlite))
        let database = fixture.store.database
        let plan = try database.withReader { connection in
            try connection.query("EXPLAIN QUERY PLAN " + sql, [test.key] + test.more).map { try $0.string("detail") }
        }
        #expect(!plan.contains { $0.hasPrefix("SCAN ") }, "\(plan)")
        for index in test.indexes {
            #expect(plan.contains { $0.hasPrefix("SEARCH ") && $0.contains(index) }, "\(index) not sought: \(plan)")
        }
        // It runs (every index it names exists) and finds the row it was given.
        let row = try database.withReader { try $0.queryOne(sql, [test.key] + test.more) }
        #expect(row != nil)
    }

    /// Deleting an account deletes the mail queued to its address under the write lock: by index
    /// (migration 0018), not by reading the whole outbox.
    @Test func anAccountsQueuedMailIsFoundByIndex() throws {
        let fixture = try Self.fixture()
        let plan = try fixture.store.database.withReader { connection in
            try connection.query("EXPLAIN QUERY PLAN DELETE FROM mail_outbox WHERE lower(recipient) = ?1", [.text("a@example.com")])
                .map { try $0.string("detail") }
        }
        #expect(plan.contains { $0.hasPrefix("SEARCH ") && $0.contains("mail_outbox_by_recipient") }, "\(plan)")
    }

    @Test(arguments: cases) func postgresqlNeedsNone(_ test: Case) {
        #expect(test.statement(.postgresql) == nil)
    }
}
