import Foundation
import Logging
import Mail
import Model
import Settings
import Storage
import Testing
import TestSupport
@testable import Server

/// The background sender against a real SQLite outbox and a real SMTP server (aiosmtpd).
@Suite struct MailSenderTests {
    static let key = [UInt8](repeating: 9, count: 32)
    static let message = MailMessage(to: "alice@example.org", template: .passwordlessCode, locale: "ja",
                                     values: ["code": "604213", "app_name": "Example", "expires_minutes": "10"])

    struct Harness {
        let store: Store
        let directory: TemporaryDirectory
        let outbox: SQLiteMailOutbox
        let clock = MutableClock(Date(timeIntervalSince1970: 1_796_126_400))
        let sink = LogSink.memory()
        let metrics = GatehouseMetrics(version: "test")

        init() throws {
            (store, directory) = try makeTestStore()
            outbox = SQLiteMailOutbox(store: store, key: MailSenderTests.key)
        }

        func sender(port: Int, maxAge: TimeInterval = 86_400) throws -> MailSender {
            let url = try SMTPURL.parse("smtp://127.0.0.1:\(port)").get()
            return MailSender(outbox: outbox, makeTransport: { SMTPTransport(.init(url: url), cancellation: $0) }, templates: MailTemplates(),
                              from: try MailAddress.parse("Example <no-reply@example.com>"), maxAge: maxAge,
                              logger: Logger(sink: sink), metrics: metrics, clock: clock)
        }

        func entry() throws -> OutboxEntry { try #require(try outbox.list(limit: 1).first) }
    }

    @Test func aDueMessageIsRenderedSentAndScrubbed() throws {
        let harness = try Harness()
        defer { harness.store.close() }
        let smtp = try SMTPSink()
        try harness.outbox.enqueue(Self.message, at: harness.clock.now)
        #expect(try harness.sender(port: smtp.port).drain() == 1)
        let received = try #require(smtp.waitForMessages(1).first)
        #expect(received.envelopeTo == ["alice@example.org"])
        #expect(received.raw.contains("Subject: =?UTF-8?B?"), "a Japanese subject, encoded")
        #expect(try harness.entry().status == .sent && !harness.entry().holdsValues)
        #expect(harness.metrics.registry.render().contains("gatehouse_mail_sent_total{template=\"passwordless_code\"} 1"))
        let lines = harness.sink.lines.joined(separator: "\n")
        #expect(lines.contains("\"mail_sent\"") && lines.contains("\"recipient_domain\":\"example.org\""))
        #expect(!lines.contains("alice@") && !lines.contains("604213"), "no address and no code in the log")
    }

    /// 15 s, 30 s, 60 s …: each failure waits twice as long, then the message is given up after email_max_age.
    @Test func anOutageIsRetriedWithBackoffThenGivenUp() throws {
        let harness = try Harness()
        defer { harness.store.close() }
        let sender = try harness.sender(port: Daemon.freePort(), maxAge: 200)
        try harness.outbox.enqueue(Self.message, at: harness.clock.now)
        let start = harness.clock.now
        #expect(sender.drain() == 1)
        var entry = try harness.entry()
        #expect(entry.status == .pending && entry.attempts == 1 && entry.nextAttemptAt == start.addingTimeInterval(15))
        #expect(entry.lastError?.hasPrefix("cannot connect") == true)
        #expect(sender.drain() == 0, "not due yet")
        harness.clock.advance(by: 15)
        #expect(sender.drain() == 1)
        #expect(try harness.entry().nextAttemptAt == start.addingTimeInterval(15 + 30))
        harness.clock.advance(by: 30)
        sender.drain()
        #expect(try harness.entry().nextAttemptAt == start.addingTimeInterval(45 + 60))
        harness.clock.advance(by: 60)  // At 105 s the next wait (120 s) would end past max age (200 s): give up.
        sender.drain()
        entry = try harness.entry()
        #expect(entry.status == .failed && entry.attempts == 4 && !entry.holdsValues)
        #expect(entry.lastError?.contains("gave up after 4 attempts") == true)
        #expect(harness.metrics.registry.render().contains("gatehouse_mail_failed_total{template=\"passwordless_code\"} 1"))
        #expect(harness.metrics.registry.render().contains("gatehouse_mail_retries_total 3"))
    }

    @Test(arguments: [(1, 15.0), (2, 30.0), (3, 60.0), (4, 120.0), (7, 960.0), (8, 1800.0), (30, 1800.0), (200, 1800.0)])
    func backoffDoublesUpToThirtyMinutes(attempt: Int, seconds: TimeInterval) {
        #expect(MailSender.backoff(afterAttempt: attempt) == seconds)
    }

    @Test func aRejectedRecipientFailsAtOnce() throws {
        let harness = try Harness()
        defer { harness.store.close() }
        let smtp = try SMTPSink(options: ["--reject", "alice@example.org"])
        try harness.outbox.enqueue(Self.message, at: harness.clock.now)
        try harness.sender(port: smtp.port).drain()
        let entry = try harness.entry()
        #expect(entry.status == .failed && entry.attempts == 1 && entry.lastError?.contains("550") == true)
    }

    @Test func aTemplateErrorFailsAtOnce() throws {
        let harness = try Harness()
        defer { harness.store.close() }
        let smtp = try SMTPSink()
        try harness.outbox.enqueue(MailMessage(to: "alice@example.org", template: .verifyEmail, values: [:]), at: harness.clock.now)
        try harness.sender(port: smtp.port).drain()
        #expect(try harness.entry().status == .failed && harness.entry().lastError?.contains("no value was given") == true)
        #expect(smtp.messages().isEmpty)
    }

    /// An unusable transport (an unreadable password file) keeps the mail for later; an idle poll does not even build one.
    @Test func anUnusableTransportRetriesLater() throws {
        let harness = try Harness()
        defer { harness.store.close() }
        let builds = Counter()
        let sender = MailSender(outbox: harness.outbox, makeTransport: { _ in builds.increment(); throw SetupFailure() }, templates: MailTemplates(),
                                from: try MailAddress.parse("no-reply@example.com"), maxAge: 86_400, logger: Logger(sink: harness.sink),
                                metrics: nil, clock: harness.clock)
        #expect(sender.drain() == 0 && builds.value == 0)
        try harness.outbox.enqueue(Self.message, at: harness.clock.now)
        #expect(sender.drain() == 1 && builds.value == 1)
        let entry = try harness.entry()
        #expect(entry.status == .pending && entry.holdsValues && entry.lastError?.contains("cannot be set up") == true)
        #expect(harness.sink.lines.contains { $0.contains("\"mail_transport_unusable\"") })
    }

    struct SetupFailure: Error {}

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func increment() { lock.lock(); count += 1; lock.unlock() }
        var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    }

    /// An enqueue wakes the running sender: the message leaves long before the 5 s poll.
    @Test func anEnqueueWakesTheSender() throws {
        let (store, directory) = try makeTestStore()
        defer { store.close(); _ = directory }
        let smtp = try SMTPSink()
        let outbox = SQLiteMailOutbox(store: store, key: Self.key)
        let url = try SMTPURL.parse("smtp://127.0.0.1:\(smtp.port)").get()
        let sender = MailSender(outbox: outbox, makeTransport: { SMTPTransport(.init(url: url), cancellation: $0) }, templates: MailTemplates(),
                                from: try MailAddress.parse("no-reply@example.com"), maxAge: 86_400, logger: Logger(sink: .memory()), metrics: nil)
        sender.start()
        defer { sender.stop() }
        Thread.sleep(forTimeInterval: 0.3)  // Asleep now, for up to 5 s.
        let queued = Date()
        try WakingMailQueue(outbox: outbox, sender: sender).enqueue(Self.message, at: Date())
        #expect(smtp.waitForMessages(1, timeout: 10).count == 1)
        #expect(Date().timeIntervalSince(queued) < 2.5)
    }

    /// Shutdown does not wait out a hung mail program: the delivery is aborted and retried later.
    @Test func stopAbortsADeliveryInProgress() throws {
        let harness = try Harness()
        defer { harness.store.close() }
        let script = harness.directory.file("hang")
        try "#!/bin/sh\nsleep 30\n".write(toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        let sender = MailSender(outbox: harness.outbox, makeTransport: { SendmailTransport(command: [script], cancellation: $0) },
                                templates: MailTemplates(), from: try MailAddress.parse("no-reply@example.com"), maxAge: 86_400,
                                logger: Logger(sink: .memory()), metrics: nil, clock: harness.clock)
        try harness.outbox.enqueue(Self.message, at: harness.clock.now)
        sender.start()
        Thread.sleep(forTimeInterval: 0.5)
        let stopping = Date()
        sender.stop()
        #expect(Date().timeIntervalSince(stopping) < 3)
        let entry = try harness.entry()
        #expect(entry.status == .pending && entry.holdsValues, "kept for the next start")
    }
}
