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
    /// Events the last flush took: the room the next list starts with (none while idle).
    private let lastBatch = Atomic<Int>(0)
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
        // The lock is held only to swap the list for an empty one with room for as many events as
        // the last interval brought: copying the pending events, freeing them and growing the new
        // list all happen outside it. (Every token request records an event, and the workers spun
        // on this lock while a flush copied and freed a fifth of a second's events under it.)
        var pending: [AuditEvent] = []
        let expected = lastBatch.load(ordering: .relaxed)
        if expected > 0 { pending.reserveCapacity(expected + expected / 4) }
        let summaries = state.withLock { state -> [AuditEvent] in
            swap(&state.events, &pending)
            return state.limiter.takeSummaries(at: now, closing: closing)
        }
        lastBatch.store(pending.count, ordering: .relaxed)
        let batch = summaries.isEmpty ? pending : pending + summaries
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
