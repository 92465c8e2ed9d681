import Foundation
import Model
import SQLite
import Storage
import Testing
import TestSupport

@Suite struct MailOutboxTests {
    static let key = [UInt8](repeating: 7, count: 32)
    static let start = Date(timeIntervalSince1970: 1_796_126_400)
    static let message = MailMessage(to: "alice@example.org", template: .passwordlessCode, locale: "ja",
                                     values: ["code": "918273", "app_name": "Example", "expires_minutes": "10"])

    @Test func enqueuedValuesAreSealedAtRestAndOpenForTheSender() throws {
        let (store, directory) = try makeTestStore()
        defer { store.close() }
        let outbox = SQLiteMailOutbox(store: store, key: Self.key)
        try outbox.enqueue(Self.message, at: Self.start)
        try store.checkpoint()
        // The code is nowhere in the database file or its log.
        for file in ["idp.sqlite3", "idp.sqlite3-wal"] {
            let bytes = FileManager.default.contents(atPath: directory.file(file)) ?? Data()
            #expect(bytes.range(of: Data("918273".utf8)) == nil, "\(file) holds the code in clear")
        }
        let claimed = try outbox.claimDue(at: Self.start, limit: 10, lease: 120)
        #expect(claimed.map(\.message) == [Self.message])
        #expect(claimed.first?.attempts == 1)
    }

    @Test(arguments: TestBackend.available) func aClaimHoldsUntilItsLeaseEnds(_ backend: TestBackend) throws {
        let (store, _directory) = try makeTestStorage(backend)
        defer { store.close(); _ = _directory }
        let outbox = SQLiteMailOutbox(store: store, key: Self.key)
        try outbox.enqueue(Self.message, at: Self.start)
        #expect(try outbox.claimDue(at: Self.start, limit: 10, lease: 120).count == 1)
        #expect(try outbox.claimDue(at: Self.start.addingTimeInterval(60), limit: 10, lease: 120).isEmpty)
        // A sender that died holding it: the claim runs out and the message is due again.
        let again = try outbox.claimDue(at: Self.start.addingTimeInterval(121), limit: 10, lease: 120)
        #expect(again.first?.attempts == 2)
        // Or, after a restart, at once.
        try outbox.releaseClaims(at: Self.start.addingTimeInterval(130))
        #expect(try outbox.claimDue(at: Self.start.addingTimeInterval(130), limit: 10, lease: 120).first?.attempts == 3)
    }

    @Test(arguments: TestBackend.available) func sentMessagesLoseTheirValuesAndKeepTheirHistory(_ backend: TestBackend) throws {
        let (store, directory) = try makeTestStorage(backend)
        defer { store.close() }
        let outbox = SQLiteMailOutbox(store: store, key: Self.key)
        try outbox.enqueue(Self.message, at: Self.start)
        let id = try #require(try outbox.claimDue(at: Self.start, limit: 1, lease: 120).first?.id)
        try outbox.markSent(id, at: Self.start.addingTimeInterval(1))
        let entry = try #require(try outbox.list(limit: 10).first)
        #expect(entry.status == .sent && entry.attempts == 1 && !entry.holdsValues && entry.recipient == "alice@example.org")
        #expect(entry.finishedAt == Self.start.addingTimeInterval(1) && entry.nextAttemptAt == nil)
        #expect(try outbox.depth() == 0)
        // Read the row through a connection of its own, as an operator (or an attacker with a copy) would.
        let copy: any SQLDatabase = backend == .sqlite ? try Database(path: directory.file("idp.sqlite3"), readers: 1) : store.records.sql
        defer { (copy as? Database)?.close() }
        let row = try copy.read { try $0.queryOne("SELECT sealed_values IS NULL AS scrubbed, status FROM mail_outbox") }
        #expect(try row?.int("scrubbed") == 1 && row?.string("status") == "sent")
        #expect(try outbox.claimDue(at: Self.start.addingTimeInterval(3600), limit: 10, lease: 120).isEmpty, "never sent twice")
    }

    @Test(arguments: TestBackend.available) func aRetryWaitsForItsTimeAndKeepsTheError(_ backend: TestBackend) throws {
        let (store, _directory) = try makeTestStorage(backend)
        defer { store.close(); _ = _directory }
        let outbox = SQLiteMailOutbox(store: store, key: Self.key)
        try outbox.enqueue(Self.message, at: Self.start)
        let id = try #require(try outbox.claimDue(at: Self.start, limit: 1, lease: 120).first?.id)
        try outbox.scheduleRetry(id, at: Self.start.addingTimeInterval(15), error: "cannot connect: Connection refused")
        #expect(try outbox.nextDue() == Self.start.addingTimeInterval(15))
        #expect(try outbox.claimDue(at: Self.start.addingTimeInterval(14), limit: 1, lease: 120).isEmpty)
        let entry = try #require(try outbox.list(limit: 1).first)
        #expect(entry.status == .pending && entry.lastError == "cannot connect: Connection refused" && entry.holdsValues)
        #expect(try outbox.claimDue(at: Self.start.addingTimeInterval(15), limit: 1, lease: 120).first?.attempts == 2)
    }

    @Test(arguments: TestBackend.available) func aFailedMessageLosesItsValues(_ backend: TestBackend) throws {
        let (store, _directory) = try makeTestStorage(backend)
        defer { store.close(); _ = _directory }
        let outbox = SQLiteMailOutbox(store: store, key: Self.key)
        try outbox.enqueue(Self.message, at: Self.start)
        let id = try #require(try outbox.claimDue(at: Self.start, limit: 1, lease: 120).first?.id)
        try outbox.markFailed(id, at: Self.start, error: "refused by the server: 550 mailbox unavailable")
        let entry = try #require(try outbox.list(limit: 1, statuses: [.failed]).first)
        #expect(entry.status == .failed && !entry.holdsValues && entry.lastError == "refused by the server: 550 mailbox unavailable")
        #expect(try outbox.nextDue() == nil)
    }

    /// Values sealed under another key (the KEK changed) cannot be sent; the row fails rather than blocking the queue.
    @Test(arguments: TestBackend.available) func valuesSealedUnderAnotherKeyFailTheirRow(_ backend: TestBackend) throws {
        let (store, _directory) = try makeTestStorage(backend)
        defer { store.close(); _ = _directory }
        try SQLiteMailOutbox(store: store, key: [UInt8](repeating: 1, count: 32)).enqueue(Self.message, at: Self.start)
        let outbox = SQLiteMailOutbox(store: store, key: Self.key)
        #expect(try outbox.claimDue(at: Self.start, limit: 10, lease: 120).isEmpty)
        let entry = try #require(try outbox.list(limit: 1).first)
        #expect(entry.status == .failed && entry.lastError?.contains("cannot be opened") == true)
    }

    @Test(arguments: TestBackend.available) func dueMessagesComeOldestFirst(_ backend: TestBackend) throws {
        let (store, _directory) = try makeTestStorage(backend)
        defer { store.close(); _ = _directory }
        let outbox = SQLiteMailOutbox(store: store, key: Self.key)
        for index in 0..<5 {
            try outbox.enqueue(MailMessage(to: "u\(index)@example.org", template: .verifyEmail, values: ["code": "\(index)"]), at: Self.start.addingTimeInterval(Double(index)))
        }
        #expect(try outbox.depth() == 5)
        #expect(try outbox.claimDue(at: Self.start.addingTimeInterval(10), limit: 3, lease: 60).map(\.message.to) == ["u0@example.org", "u1@example.org", "u2@example.org"])
    }

    @Test(arguments: TestBackend.available) func thePurgeDeletesFinishedMailAfterItsRetentionOnly(_ backend: TestBackend) throws {
        let (store, _directory) = try makeTestStorage(backend)
        defer { store.close(); _ = _directory }
        let outbox = SQLiteMailOutbox(store: store, key: Self.key)
        for index in 0..<3 { try outbox.enqueue(MailMessage(to: "u\(index)@example.org", template: .test), at: Self.start) }
        let claimed = try outbox.claimDue(at: Self.start, limit: 2, lease: 60)
        try outbox.markSent(claimed[0].id, at: Self.start)
        try outbox.markFailed(claimed[1].id, at: Self.start, error: "x")
        var policy = RetentionPolicy()
        policy.mailRetention = 3600
        #expect(try Purger(store: store).purge(policy, at: Self.start.addingTimeInterval(3599)).deleted[.mailOutbox] == nil)
        #expect(try Purger(store: store).dueCounts(policy, at: Self.start.addingTimeInterval(3600))[.mailOutbox] == 2)
        #expect(try Purger(store: store).purge(policy, at: Self.start.addingTimeInterval(3600)).deleted[.mailOutbox] == 2)
        // The pending one stays, however old.
        #expect(try Purger(store: store).purge(policy, at: Self.start.addingTimeInterval(86_400 * 30)).deleted[.mailOutbox] == nil)
        #expect(try outbox.list(limit: 10).map(\.recipient) == ["u2@example.org"])
    }

    @Test func memoryQueueRecords() throws {
        let queue = MemoryMailQueue()
        try queue.enqueue(Self.message, at: Self.start)
        #expect(queue.last(to: "alice@example.org")?.values["code"] == "918273")
        queue.failure.withLock { $0 = .unavailable("disk full") }
        #expect(throws: StorageError.unavailable("disk full")) { try queue.enqueue(Self.message, at: Self.start) }
    }
}
