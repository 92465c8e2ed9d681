import Crypto
import Dispatch
import FoundationEssentials
import HTTP
import Logging
import Mail
import Model
import Storage
import Synchronization

/// The daemon's background mail sender (README "Email"): drains the outbox on a thread of its
/// own, never on a request. It wakes at once when a request enqueues (`wake()`), otherwise when
/// the next retry is due or every `pollInterval` (mail queued by `idp-admin`). Failed deliveries
/// are retried with exponential backoff until `maxAge` after queueing; a permanent refusal fails
/// at once. A restart resumes: claims left by the previous process are released at start.
final class MailSender: Sendable {
    private let outbox: SQLiteMailOutbox
    /// Built for each drain, so a rotated `smtp_password_file` is read again.
    private let makeTransport: @Sendable (DeliveryCancellation) throws -> any MailTransport
    private let templates: MailTemplates
    private let from: MailAddress
    private let maxAge: TimeInterval
    private let logger: Logger
    private let metrics: GatehouseMetrics?
    private let clock: any Clock
    private let cancellation = DeliveryCancellation()
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)

    /// Messages claimed per write transaction.
    let batchSize = 10
    /// A claim outlives the transport's whole timeout, so a live sender never loses one.
    static let lease: TimeInterval = 300
    /// The first retry waits this long; each further one twice as long, up to `maximumBackoff`.
    static let firstBackoff: TimeInterval = 15
    static let maximumBackoff: TimeInterval = 30 * 60
    static let pollInterval: TimeInterval = 5

    init(outbox: SQLiteMailOutbox, makeTransport: @escaping @Sendable (DeliveryCancellation) throws -> any MailTransport,
         templates: MailTemplates, from: MailAddress, maxAge: TimeInterval, logger: Logger, metrics: GatehouseMetrics?,
         clock: any Clock = SystemClock()) {
        self.outbox = outbox
        self.makeTransport = makeTransport
        self.templates = templates
        self.from = from
        self.maxAge = maxAge
        self.logger = logger
        self.metrics = metrics
        self.clock = clock
    }

    /// The wait before retry number `attempts` (1-based): 15 s, 30 s, 1 min, … at most 30 min.
    static func backoff(afterAttempt attempts: Int) -> TimeInterval {
        min(maximumBackoff, firstBackoff * Double(1 << min(max(attempts - 1, 0), 20)))
    }

    func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        do {
            try outbox.releaseClaims(at: clock.now)
        } catch {
            logger.error("mail_queue_unavailable", ["error": .string(error.description)])
        }
        OSThread.start(name: "gatehouse-mail") { [self] in
            defer { exited.signal() }
            while !stopping.load(ordering: .acquiring) {
                drain()
                if stopping.load(ordering: .acquiring) { return }
                _ = wakeUp.wait(timeout: .now() + .milliseconds(Int(sleepTime() * 1000)))
            }
        }
    }

    /// Called after an enqueue: the sender runs now rather than at its next timer.
    func wake() { wakeUp.signal() }

    /// Stops the thread and waits for it; a delivery in progress is aborted (and retried after
    /// the next start), so shutdown never waits for a slow mail server.
    func stop() {
        stopping.store(true, ordering: .releasing)
        guard started.load(ordering: .acquiring) else { return }
        cancellation.cancel()
        wakeUp.signal()
        exited.wait()
    }

    /// Until the next retry is due, at most `pollInterval`.
    private func sleepTime() -> TimeInterval {
        guard let next = try? outbox.nextDue() else { return Self.pollInterval }
        return min(Self.pollInterval, max(0.05, next.timeIntervalSince(clock.now)))
    }

    /// Sends everything due now; returns how many messages it handled (sent, retried or failed).
    @discardableResult
    func drain() -> Int {
        var handled = 0
        // Built once something is due, so an idle poll reads no password file.
        var transport: (any MailTransport)?
        while !stopping.load(ordering: .acquiring) {
            let batch: [ClaimedMail]
            do {
                batch = try outbox.claimDue(at: clock.now, limit: batchSize, lease: Self.lease)
            } catch {
                logger.error("mail_queue_unavailable", ["error": .string(error.description)])
                return handled
            }
            if batch.isEmpty { return handled }
            if transport == nil {
                do {
                    transport = try makeTransport(cancellation)
                } catch {
                    // A configuration an operator is about to fix (say, the password file): retry later.
                    logger.error("mail_transport_unusable", ["error": .string(String(describing: error))])
                    for mail in batch {
                        retry(mail, after: DeliveryError(.other, "the transport cannot be set up: \(error)"), fields: Self.logFields(mail))
                    }
                    return handled + batch.count
                }
            }
            for mail in batch {
                // Stopped mid-batch: the rest keep their claims until the next start releases them.
                if stopping.load(ordering: .acquiring) { return handled }
                deliver(mail, through: transport!)
                handled += 1
            }
        }
        return handled
    }

    private func deliver(_ mail: ClaimedMail, through transport: any MailTransport) {
        let fields = Self.logFields(mail)
        let bytes: [UInt8]
        do {
            let rendered = try templates.render(mail.message.template.rawValue, locale: mail.message.locale, values: mail.message.values)
            bytes = try OutgoingMessage(from: from, to: try MailAddress(address: mail.message.to), subject: rendered.subject,
                                        text: rendered.text, html: rendered.html, date: clock.now).composed()
        } catch {
            // The message itself is at fault (a template, an address): retrying cannot help.
            fail(mail, reason: error.description, fields: fields)
            return
        }
        do {
            try transport.send(bytes, from: from.address, to: [mail.message.to])
        } catch {
            retry(mail, after: error, fields: fields)
            return
        }
        record { try outbox.markSent(mail.id, at: clock.now) }
        logger.info("mail_sent", fields)
        metrics?.recordMailSent(template: mail.message.template.rawValue)
    }

    /// Another attempt after the backoff, or none: a permanent refusal, or past `maxAge`.
    private func retry(_ mail: ClaimedMail, after error: DeliveryError, fields: [String: LogValue]) {
        var fields = fields
        fields["error"] = .string(error.description)
        let next = clock.now.addingTimeInterval(error.kind == .cancelled ? 0 : Self.backoff(afterAttempt: mail.attempts))
        if error.isPermanent || next > mail.createdAt.addingTimeInterval(maxAge) {
            let reason = error.isPermanent ? error.description
                : "gave up after \(mail.attempts) attempts over \(Int(maxAge / 3600)) h: \(error.description)"
            fail(mail, reason: reason, fields: fields)
            return
        }
        record { try outbox.scheduleRetry(mail.id, at: next, error: error.description) }
        fields["retry_in_s"] = .int(Int(next.timeIntervalSince(clock.now)))
        logger.warning("mail_retry", fields)
        metrics?.recordMailRetry()
    }

    private func fail(_ mail: ClaimedMail, reason: String, fields: [String: LogValue]) {
        var fields = fields
        fields["error"] = .string(reason)
        record { try outbox.markFailed(mail.id, at: clock.now, error: reason) }
        logger.error("mail_failed", fields)
        metrics?.recordMailFailed(template: mail.message.template.rawValue)
    }

    private func record(_ body: () throws -> Void) {
        do { try body() } catch { logger.error("mail_queue_unavailable", ["error": .string(String(describing: error))]) }
    }

    /// The recipient is personal data: logs carry its domain and a short digest (enough to
    /// match a complaint about one address), never the address, and never the values.
    static func logFields(_ mail: ClaimedMail) -> [String: LogValue] {
        let address = mail.message.to.lowercased()
        let domain = address.split(separator: "@").last.map(String.init) ?? ""
        return ["mail_id": .int(Int(mail.id)), "template": .string(mail.message.template.rawValue), "attempt": .int(mail.attempts),
                "recipient_domain": .string(domain), "recipient_hash": .string(String(Digest.sha256Hex(Array(address.utf8)).prefix(16)))]
    }
}

/// What requests enqueue into: the outbox, then a wake-up for the sender.
struct WakingMailQueue: MailQueue {
    let outbox: SQLiteMailOutbox
    let sender: MailSender

    func enqueue(_ message: MailMessage, at time: Date) throws(StorageError) {
        try outbox.enqueue(message, at: time)
        sender.wake()
    }
}
