import FoundationEssentials
import Logging
import Model
import Storage
import Synchronization

/// Collects the daemon's audit events and writes them in batches, one transaction every
/// `interval`, off the request path: a login or token request then costs no extra commit.
/// A crash may lose the last interval's events; `stop()` writes what is pending.
final class AuditRecorder: Sendable {
    private let store: AuditStore
    private let logger: Logger
    private let pending = Mutex<[AuditEvent]>([])
    private let flusher = PeriodicTask()

    init(store: AuditStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    func record(_ event: AuditEvent) {
        pending.withLock { $0.append(event) }
    }

    /// Writes everything pending now.
    func flush() {
        let batch = pending.withLock { events -> [AuditEvent] in
            defer { events = [] }
            return events
        }
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
        flush()
    }
}
