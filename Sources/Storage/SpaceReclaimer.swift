import FoundationEssentials
import Model
import SQLite

/// What giving free pages back to the file system did.
public struct ReclaimReport: Sendable, Equatable {
    public internal(set) var releasedPages = 0
    public internal(set) var steps = 0
    public internal(set) var longestHold: Duration = .zero
    /// The file was created before incremental auto-vacuum: nothing can be released until
    /// `idp-admin db vacuum` rebuilds it.
    public internal(set) var needsFullVacuum = false
    /// PostgreSQL: its autovacuum makes dead rows' space reusable and nothing here gives space back
    /// (`VACUUM FULL` would lock every table it rewrites, which a running daemon must not do).
    public internal(set) var serverManaged = false
    /// Free pages left (at most `keep` unless interrupted or not possible).
    public internal(set) var freePages = 0
    public internal(set) var pageSize = 0
}

/// Shrinks the database file after a purge: `PRAGMA incremental_vacuum` in short write
/// transactions of `step` pages, pausing between them like the purge does, until at most
/// `keep` free pages are left. A few free pages are kept because the next inserts reuse them
/// without growing the file; releasing them all would only make it grow again. On PostgreSQL the
/// server's autovacuum does this job: `reclaim` reports `serverManaged` and does nothing.
public struct SpaceReclaimer: Sendable {
    let database: any SQLDatabase
    /// Pages per write transaction: moving a page also rewrites its parent and pointer-map page.
    public var step = 128
    /// Free pages left in place (256 × 4 KiB = 1 MiB).
    public var keep = 256
    public var pause: Duration = .milliseconds(2)

    public init(store: some SQLStorage) { database = store.records.sql }

    public func reclaim(shouldContinue: () -> Bool = { true }) throws(StorageError) -> ReclaimReport {
        try mapStorageErrors {
            var report = ReclaimReport()
            guard let database = database as? Database else {
                report.serverManaged = true
                return report
            }
            var stats = try database.pageStats()
            report.pageSize = stats.pageSize
            report.freePages = stats.freePages
            guard stats.autoVacuum == .incremental else {
                report.needsFullVacuum = stats.freePages > keep
                return report
            }
            while stats.freePages > keep, shouldContinue() {
                let (released, held) = try database.incrementalVacuum(pages: min(step, stats.freePages - keep))
                report.releasedPages += released
                report.steps += 1
                report.longestHold = max(report.longestHold, held)
                stats = try database.pageStats()
                report.freePages = stats.freePages
                if released == 0 { break }
                Purger.sleep(pause)
            }
            return report
        }
    }
}
