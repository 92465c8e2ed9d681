import Foundation
import Model
import SQLite
import Storage
import Testing
import TestSupport

/// `/readyz` must say "not ready" while writes fail, though reads still work, and come back by
/// itself once they work again. A full disk is simulated with `max_page_count` on the writer.
@Suite struct WriteReadinessTests {
    static var fast: WriteCheckTiming {
        var timing = WriteCheckTiming()
        timing.holdDown = .milliseconds(200)
        timing.idleAfter = .seconds(60)
        timing.reuse = .zero
        return timing
    }

    private func probes(_ store: Store) throws -> Int {
        try store.database.read { try $0.queryOne("SELECT count(*) FROM write_probe")?.int(0) ?? 0 }
    }

    /// Writes work again: not ready until the hold-down since the last failure is over, then ready.
    private func expectReadyAfterTheHoldDown(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(throws: StorageError.self, sourceLocation: sourceLocation) { try store.checkWrites(Self.fast) }
        Thread.sleep(forTimeInterval: 0.25)
        try store.checkWrites(Self.fast)
    }

    /// Fills the database up to `max_page_count` until a write fails; returns that error.
    private func fill(_ store: Store) throws -> StorageError? {
        let pages = try store.database.pageStats().pageCount
        try store.database.withWriter { try $0.execute("PRAGMA max_page_count = \(pages + 2)") }
        let audit = AuditStore(store: store)
        for index in 0..<1000 {
            do {
                try audit.append(AuditEvent(time: Date(), event: "fill", actor: "test", details: ["n": String(index), "pad": String(repeating: "x", count: 200)]))
            } catch {
                return error
            }
        }
        return nil
    }

    @Test func recentSuccessfulWritesNeedNoProbe() throws {
        let (store, directory) = try makeTestStore()
        try AuditStore(store: store).append(AuditEvent(time: Date(), event: "x", actor: "test"))
        try store.checkWrites(Self.fast)
        #expect(try probes(store) == 0)
        withExtendedLifetime(directory) {}
    }

    @Test func anIdleStoreIsProbed() throws {
        let (store, directory) = try makeTestStore()
        var timing = Self.fast
        timing.idleAfter = .zero
        try store.checkWrites(timing)
        #expect(try probes(store) == 1)
        withExtendedLifetime(directory) {}
    }

    @Test func aFullDatabaseIsNotReadyUntilWritesWorkAgain() throws {
        let (store, directory) = try makeTestStore()
        let seeded = SQLiteUserStore(store: store)
        try seeded.create(Sample.user())
        let failure = try fill(store)
        guard case .unavailable(let why) = failure else {
            Issue.record("expected a full database, got \(String(describing: failure))")
            return
        }
        #expect(why.contains("full"))
        #expect(store.database.writeHealth.snapshot.isFailing)
        // Reads still work: the old readiness check said ready.
        try store.ping()
        let refused = #expect(throws: StorageError.self) { try store.checkWrites(Self.fast) }
        #expect(String(describing: refused).contains("full"))
        // Room again: still not ready within the hold-down, then a probe write brings it back by itself.
        try store.database.withWriter { try $0.execute("PRAGMA max_page_count = 1073741823") }
        try expectReadyAfterTheHoldDown(store)
        #expect(try probes(store) == 1)
        #expect(!store.database.writeHealth.snapshot.isFailing)
        // Nothing stored before was damaged, and writes work.
        #expect(try seeded.find(userID: Sample.user().userID) != nil)
        try AuditStore(store: store).append(AuditEvent(time: Date(), event: "after", actor: "test"))
        #expect(try store.database.integrityCheck() == ["ok"])
        withExtendedLifetime(directory) {}
    }

    /// While writes keep failing (here a read-only writer), each probe fails too and readiness stays off.
    @Test func aFailingProbeKeepsItNotReady() throws {
        let (store, directory) = try makeTestStore()
        try store.database.withWriter { try $0.execute("PRAGMA query_only = ON") }
        #expect(throws: StorageError.self) { try AuditStore(store: store).append(AuditEvent(time: Date(), event: "x", actor: "test")) }
        #expect(store.database.writeHealth.snapshot.lastFailure?.error.isReadOnly == true)
        Thread.sleep(forTimeInterval: 0.25)
        let probed = #expect(throws: StorageError.self) { try store.checkWrites(Self.fast) }
        #expect(String(describing: probed).contains("probe write failed"))
        try store.database.withWriter { try $0.execute("PRAGMA query_only = OFF") }
        // The failed probe started another hold-down; after it, the next probe succeeds.
        try expectReadyAfterTheHoldDown(store)
        withExtendedLifetime(directory) {}
    }

    /// A constraint violation is the caller's problem, not the disk's.
    @Test func refusedRowsDoNotCountAsWriteFailures() throws {
        let (store, directory) = try makeTestStore()
        let users = SQLiteUserStore(store: store)
        try users.create(Sample.user())
        #expect(throws: StorageError.self) { try users.create(Sample.user()) }
        #expect(!store.database.writeHealth.snapshot.isFailing)
        try store.checkWrites(Self.fast)
        withExtendedLifetime(directory) {}
    }
}
