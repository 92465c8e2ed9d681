import FoundationEssentials
import Model
import SQLite

/// How `Store.checkWrites` decides; the daemon uses the defaults.
public struct WriteCheckTiming: Sendable {
    /// After a write failed because of the storage: not ready for this long, without writing.
    public var holdDown: Duration = .seconds(5)
    /// With no successful write for this long, a probe write decides.
    public var idleAfter: Duration = .seconds(10)
    /// A probe's verdict is reused this long, so frequent readiness checks cost one write.
    public var reuse: Duration = .seconds(1)

    public init() {}
}

extension Store {
    /// For /readyz: throws `.unavailable` while writes fail (disk full, read-only file, I/O error).
    ///
    /// A full disk still answers every read, so `ping()` alone said "ready" while every sign-in
    /// and refresh failed. The writer records each write's outcome (`Database.writeHealth`):
    /// - after a failing write, not ready for `holdDown`, then a one-row probe write decides (so
    ///   readiness comes back by itself once there is room, even with no traffic);
    /// - with no successful write for `idleAfter`, a probe write decides (an idle daemon finds
    ///   out before its next user does);
    /// - otherwise the recent successful writes say enough, and nothing is written.
    public func checkWrites(_ timing: WriteCheckTiming = WriteCheckTiming()) throws(StorageError) {
        let health = database.writeHealth.snapshot
        let now = ContinuousClock.now
        if health.isFailing, let failure = health.lastFailure {
            if now - failure.at < timing.holdDown {
                throw .unavailable("writes are failing: \(failure.error)")
            }
        } else if let success = health.lastSuccess, now - success < timing.idleAfter {
            return
        }
        try writeProbe.probe(database, now: now, reuse: timing.reuse)
    }
}

/// The one-row write `checkWrites` makes when recent writes cannot tell (migration 0006's table).
final class WriteProbe: Sendable {
    /// When the last probe ran and what failed (nil: it worked). Held during a probe, so
    /// concurrent readiness checks wait for one probe instead of each writing.
    private let last = Locked<(at: ContinuousClock.Instant, failure: String?)?>(nil)

    func probe(_ database: any SQLDatabase, now: ContinuousClock.Instant, reuse: Duration) throws(StorageError) {
        let failure = last.withLock { last -> String? in
            if let previous = last, now - previous.at < reuse { return previous.failure }
            let failure: String?
            do {
                try database.write { connection in
                    _ = try connection.run(
                        "INSERT INTO write_probe (id, probed_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at",
                        [.integer(Int64(Date().timeIntervalSince1970))])
                }
                failure = nil
            } catch {
                failure = StorageError.map(error).description
            }
            last = (ContinuousClock.now, failure)
            return failure
        }
        if let failure { throw .unavailable("a probe write failed: \(failure)") }
    }
}
