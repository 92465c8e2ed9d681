import FoundationEssentials
import Logging
import Model
import Storage
import Synchronization

/// Collects the daemon's audit events and writes them in batches, one transaction every
/// `interval`, off the request path: a login or token request then costs no extra commit.
/// A crash may lose the last interval's events; `stop()` writes what is pending.
/// Anonymous refusals are rate-limited per source address (`AuditRateLimiter`), so a flood
/// stores summary rows with counts instead of a row per request.
final class AuditRecorder: Sendable {
    private struct State {
        var events: [AuditEvent] = []
        var limiter: AuditRateLimiter
    }

    private let store: AuditStore
    private let logger: Logger
    private let clock: any Clock
    private let state: Mutex<State>
    private let flusher = PeriodicTask()

    init(store: AuditStore, logger: Logger, limits: AuditRateLimiter.Limits = .init(), clock: any Clock = SystemClock()) {
        self.store = store
        self.logger = logger
        self.clock = clock
        state = Mutex(State(limiter: AuditRateLimiter(limits: limits)))
    }

    func record(_ event: AuditEvent) {
        state.withLock { state in
            if state.limiter.admit(event) { state.events.append(event) }
        }
    }

    /// Writes everything pending now, with the summaries of rate-limit intervals that ended
    /// (with `closing`, of the current one too).
    func flush(closing: Bool = false) {
        let now = clock.now
        let batch = state.withLock { state -> [AuditEvent] in
            defer { state.events = [] }
            return state.events + state.limiter.takeSummaries(at: now, closing: closing)
        }
        guard !batch.isEmpty else { return }
        do {
            try store.append(batch)
        } catch {
            logger.error("audit_write_failed", ["events": .int(batch.count), "error": .string(error.description)])
        }
    }

    /// Flushes every `interval` on a background thread until `stop()`.
    func start(every interval: TimeInterval = 0.2) {
        flusher.start(name: "gatehouse-audit", every: .seconds(interval)) { [self] in flush() }
    }

    func stop() {
        flusher.stop()
        flush(closing: true)
    }
}
