import Dispatch
import FoundationEssentials
import HTTP
import Logging
import Model
import OIDC
import Storage
import Synchronization

/// The daemon's background sender of upstream revocations (README "Account deletion"): on a thread
/// of its own it drains `upstream_revocations`, POSTing each token to its Apple connection's revoke
/// endpoint with `client_id`, the client-secret JWT for that client id, `token` and
/// `token_type_hint=refresh_token`. Apple's 200 ends a row (its token dropped); anything else —
/// unreachable, 5xx, a refusal while an operator fixes the connection — is retried with
/// exponential backoff, without end, so a deletion's revocation is never silently lost. A row
/// whose connection was deleted cannot be sent and fails. Modelled on `MailSender`.
final class UpstreamRevocationSender: Sendable {
    private let queue: SQLiteUpstreamRevocationQueue
    private let connections: any ConnectionStore
    private let fetcher: any UpstreamFetcher
    private let secrets: AppleClientSecret
    private let logger: Logger
    private let clock: any Clock
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)

    let batchSize = 10
    /// A claim outlives a request's whole timeout, so a live sender never loses one.
    static let lease: TimeInterval = 120
    /// The first retry waits this long; each further one twice as long, up to `maximumBackoff`.
    static let firstBackoff: TimeInterval = 15
    static let maximumBackoff: TimeInterval = 3600
    static let pollInterval: TimeInterval = 5

    init(queue: SQLiteUpstreamRevocationQueue, connections: any ConnectionStore, fetcher: any UpstreamFetcher, secrets: AppleClientSecret,
         logger: Logger, clock: any Clock = SystemClock()) {
        self.queue = queue
        self.connections = connections
        self.fetcher = fetcher
        self.secrets = secrets
        self.logger = logger
        self.clock = clock
    }

    /// The wait before retry number `attempts` (1-based): 15 s, 30 s, 1 min, … at most an hour.
    static func backoff(afterAttempt attempts: Int) -> TimeInterval {
        min(maximumBackoff, firstBackoff * Double(1 << min(max(attempts - 1, 0), 20)))
    }

    func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        record { try queue.releaseClaims(at: clock.now) }
        OSThread.start(name: "gatehouse-revoke") { [self] in
            defer { exited.signal() }
            while !stopping.load(ordering: .acquiring) {
                drain()
                if stopping.load(ordering: .acquiring) { return }
                _ = wakeUp.wait(timeout: .now() + .milliseconds(Int(sleepTime() * 1000)))
            }
        }
    }

    /// Called after a deletion queued revocations: the sender runs now.
    func wake() { wakeUp.signal() }

    func stop() {
        stopping.store(true, ordering: .releasing)
        guard started.load(ordering: .acquiring) else { return }
        wakeUp.signal()
        exited.wait()
    }

    private func sleepTime() -> TimeInterval {
        guard let next = try? queue.nextDue() else { return Self.pollInterval }
        return min(Self.pollInterval, max(0.05, next.timeIntervalSince(clock.now)))
    }

    /// Sends everything due now; returns how many rows it handled.
    @discardableResult
    func drain() -> Int {
        var handled = 0
        while !stopping.load(ordering: .acquiring) {
            let batch: [ClaimedRevocation]
            do {
                batch = try queue.claimDue(at: clock.now, limit: batchSize, lease: Self.lease)
            } catch {
                logger.error("upstream_revocation_queue_unavailable", ["error": .string(error.description)])
                return handled
            }
            if batch.isEmpty { return handled }
            for revocation in batch {
                if stopping.load(ordering: .acquiring) { return handled }
                send(revocation)
                handled += 1
            }
        }
        return handled
    }

    private func send(_ revocation: ClaimedRevocation) {
        var fields: [String: LogValue] = ["revocation_id": .int(Int(revocation.id)), "connection": .string(revocation.connection),
                                          "client_id": .string(revocation.clientID), "attempt": .int(revocation.attempts)]
        let connection: UpstreamConnection?
        do {
            connection = try connections.find(name: revocation.connection)
        } catch {
            retry(revocation, error: "connections: \(error)", fields: fields)
            return
        }
        guard let connection, connection.strategy == .apple else {
            let reason = "the connection \(revocation.connection) no longer exists (or is not an apple connection)"
            record { try queue.markFailed(revocation.id, at: clock.now, error: reason) }
            fields["error"] = .string(reason)
            logger.error("upstream_revocation_failed", fields)
            return
        }
        let url = AppleEndpoints.revokeURL(connection)
        do throws(UpstreamError) {
            if let problem = UpstreamURLRule.problem(url) { throw UpstreamError.connection("revoke URL \(url): \(problem)") }
            let secret = try secrets.secret(for: connection, clientID: revocation.clientID)
            // Apple's revoke endpoint (its "Revoke tokens" REST API), shaped as RFC 7009 §2.1.
            let response = try fetcher.postForm(url, fields: [
                ("client_id", revocation.clientID), ("client_secret", secret), ("token", revocation.token),
                ("token_type_hint", "refresh_token"),
            ], basic: nil)
            guard response.status == 200 else {
                throw UpstreamError.unreachable("revoke answered \(response.status): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
            }
        } catch {
            retry(revocation, error: error.description, fields: fields)
            return
        }
        record { try queue.markDone(revocation.id, at: clock.now) }
        logger.info("upstream_token_revoked", fields)
    }

    private func retry(_ revocation: ClaimedRevocation, error: String, fields: [String: LogValue]) {
        var fields = fields
        let wait = Self.backoff(afterAttempt: revocation.attempts)
        record { try queue.scheduleRetry(revocation.id, at: clock.now.addingTimeInterval(wait), error: error) }
        fields["error"] = .string(error)
        fields["retry_in_s"] = .int(Int(wait))
        logger.warning("upstream_revocation_retry", fields)
    }

    private func record(_ body: () throws -> Void) {
        do { try body() } catch { logger.error("upstream_revocation_queue_unavailable", ["error": .string(String(describing: error))]) }
    }
}
