import Synchronization

/// What the last writes on a `Database` did, so readiness can tell "the file answers reads" from
/// "writes work": with a full disk, a read-only remount or a failing device every `SELECT` still
/// succeeds while every commit fails.
///
/// Only failures of the storage itself count (`SQLITE_FULL`, `SQLITE_READONLY`, `SQLITE_IOERR`,
/// `SQLITE_CANTOPEN`); a constraint violation or a busy timeout says nothing about the disk.
/// Recording a success is one atomic store, so the hot write path pays nothing measurable.
public final class WriteHealth: Sendable {
    /// Nanoseconds on `ContinuousClock` since `origin`; 0 means never.
    private let lastSuccessNanos = Atomic<Int64>(0)
    private let lastFailureNanos = Atomic<Int64>(0)
    private let lastError = Locked<SQLiteError?>(nil)
    private let origin = ContinuousClock.now

    /// A snapshot of the last outcomes.
    public struct Snapshot: Sendable {
        /// When a write last committed; nil if none has since the database was opened.
        public let lastSuccess: ContinuousClock.Instant?
        /// When a write last failed because of the storage, and why.
        public let lastFailure: (at: ContinuousClock.Instant, error: SQLiteError)?

        /// The last storage outcome was a failure (none succeeded since).
        public var isFailing: Bool {
            guard let failure = lastFailure else { return false }
            guard let success = lastSuccess else { return true }
            return failure.at > success
        }
    }

    init() {}

    /// Whether `error` says the storage cannot take writes (as opposed to a bad statement or a busy lock).
    public static func isStorageFailure(_ error: SQLiteError) -> Bool {
        error.isFull || error.isReadOnly || error.isIOError || error.isCantOpen
    }

    func recordSuccess() {
        lastSuccessNanos.store(nanos(ContinuousClock.now), ordering: .relaxed)
    }

    func recordFailure(_ error: any Error) {
        guard let error = error as? SQLiteError, Self.isStorageFailure(error) else { return }
        lastError.withLock { $0 = error }
        lastFailureNanos.store(nanos(ContinuousClock.now), ordering: .releasing)
    }

    public var snapshot: Snapshot {
        let failure = lastFailureNanos.load(ordering: .acquiring)
        let success = lastSuccessNanos.load(ordering: .relaxed)
        let error = failure == 0 ? nil : lastError.withLock { $0 }
        return Snapshot(lastSuccess: success == 0 ? nil : instant(success),
                        lastFailure: error.map { (instant(failure), $0) })
    }

    private func nanos(_ instant: ContinuousClock.Instant) -> Int64 {
        let elapsed = instant - origin
        // +1 so an outcome in the very first nanosecond is not mistaken for "never".
        return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000 + 1
    }

    private func instant(_ nanos: Int64) -> ContinuousClock.Instant {
        origin + .nanoseconds(nanos - 1)
    }
}
