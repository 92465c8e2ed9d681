import Dispatch
import FoundationEssentials
import HTTP
import Logging
import Model
import Settings
import Storage
import Synchronization

/// The daemon's background maintenance (README "Maintenance and retention"): deletes what no
/// rule needs any more (`Purger`), then gives the freed pages back (`SpaceReclaimer`). Runs once
/// at start and then every `maintenance_interval` on a thread of its own, never on a request;
/// both steps work in short write transactions with pauses, so requests keep the write lock.
final class MaintenanceTask: Sendable {
    private let store: any GatehouseStorage
    private let policy: RetentionPolicy
    private let interval: Duration
    private let logger: Logger
    private let metrics: GatehouseMetrics?
    private let clock: any Clock
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    /// The "run idp-admin db vacuum" hint is logged once per process.
    private let vacuumHinted = Atomic<Bool>(false)

    /// What one run did.
    struct Outcome: Sendable {
        let purge: PurgeReport
        let reclaim: ReclaimReport
    }

    /// `throttleWindow`: the longest login-throttle window in force, so no live counter is purged.
    init(store: any GatehouseStorage, settings: Settings, throttleWindow: TimeInterval, logger: Logger, metrics: GatehouseMetrics?,
         clock: any Clock = SystemClock()) {
        self.store = store
        var policy = RetentionPolicy(auditRetention: Self.seconds(settings.auditRetention))
        policy.throttleWindow = max(policy.throttleWindow, throttleWindow)
        self.policy = policy
        interval = settings.maintenanceInterval
        self.logger = logger
        self.metrics = metrics
        self.clock = clock
    }

    /// Starts the thread (a run now, then one every interval); does nothing when the interval is zero.
    func start() {
        guard interval > .zero, !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let nanoseconds = Int(interval.components.seconds) * 1_000_000_000 + Int(interval.components.attoseconds / 1_000_000_000)
        OSThread.start(name: "gatehouse-maint") { [self] in
            defer { exited.signal() }
            while !stopping.load(ordering: .acquiring) {
                runOnce()
                // `stop()` signals: wake at once instead of finishing the sleep.
                if wake.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success { return }
            }
        }
    }

    /// Stops the thread and waits for it: a run in progress ends after its current batch (a few
    /// milliseconds), so the store can be closed right after.
    func stop() {
        stopping.store(true, ordering: .releasing)
        guard started.load(ordering: .acquiring) else { return }
        wake.signal()
        exited.wait()
    }

    /// One run: purge, then reclaim; logs one `maintenance` line and updates the metrics.
    @discardableResult
    func runOnce() -> Outcome? {
        let begin = ContinuousClock.now
        let keepGoing = { [self] in !stopping.load(ordering: .relaxed) }
        do {
            let purge = try Purger(store: store).purge(policy, at: clock.now, shouldContinue: keepGoing)
            let reclaim = try SpaceReclaimer(store: store).reclaim(shouldContinue: keepGoing)
            report(Outcome(purge: purge, reclaim: reclaim), seconds: Self.seconds(ContinuousClock.now - begin))
            return Outcome(purge: purge, reclaim: reclaim)
        } catch {
            // Also what a full disk looks like (deleting needs WAL space); the next run retries.
            logger.error("maintenance_failed", ["error": .string(error.description),
                                                "duration_ms": .double(Self.milliseconds(Self.seconds(ContinuousClock.now - begin)))])
            metrics?.recordMaintenanceFailure()
            return nil
        }
    }

    private func report(_ outcome: Outcome, seconds: Double) {
        let (purge, reclaim) = (outcome.purge, outcome.reclaim)
        let longestHold = max(purge.longestHold, reclaim.longestHold)
        let sizes = store.sqlite?.fileSizes() ?? (database: 0, wal: 0)
        var fields: [String: LogValue] = [
            "purged": .int(purge.total), "duration_ms": .double(Self.milliseconds(seconds)), "write_batches": .int(purge.writeBatches),
            "longest_hold_ms": .double(Self.milliseconds(Self.seconds(longestHold))), "pages_released": .int(reclaim.releasedPages),
            "free_pages": .int(reclaim.freePages), "database_bytes": .int(Int(sizes.database)), "wal_bytes": .int(Int(sizes.wal)),
        ]
        for table in PurgeTable.allCases { fields["purged_" + table.rawValue] = .int(purge.deleted[table] ?? 0) }
        if purge.interrupted { fields["interrupted"] = .bool(true) }
        logger.info("maintenance", fields)
        metrics?.recordMaintenance(rows: Dictionary(uniqueKeysWithValues: purge.deleted.map { ($0.key.rawValue, $0.value) }),
                                   seconds: seconds, longestHold: Self.seconds(longestHold), pagesReleased: reclaim.releasedPages)
        if reclaim.needsFullVacuum, !vacuumHinted.exchange(true, ordering: .relaxed) {
            logger.warning("maintenance_vacuum_needed", [
                "free_pages": .int(reclaim.freePages),
                "hint": "the database predates incremental auto-vacuum, so freed space stays in the file; run `idp-admin db vacuum` once in a quiet period",
            ])
        }
    }

    /// Milliseconds to two decimals, for the log line.
    static func milliseconds(_ seconds: Double) -> Double { (seconds * 100_000).rounded() / 100 }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
