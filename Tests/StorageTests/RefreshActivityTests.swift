import Foundation
import Model
import OIDC
import SQLite
import Storage
import Testing
import TestSupport

/// A rotation that records its session's activity (`recordingActivityOf`): which outcomes count as
/// activity, what an ended or missing session does, and that on SQLite the two writes are one
/// transaction while on PostgreSQL a failed activity write cannot undo a committed rotation.
@Suite("Refresh rotation records session activity")
struct RefreshActivityTests {
    /// The SQL backends record activity; the memory store leaves it to its caller.
    static var sqlBackends: [StoreBackend] { StoreBackend.allCases.filter { $0 != .memory } }

    static func rotate(_ stores: RefreshStores, _ generation: Int, session: String? = "sid-1", window: Int = 10,
                       at time: Date) throws -> RefreshRotation {
        try stores.tokens.rotate(.family(grantID: "grant-1", generation: generation),
                                 successor: RefreshFamilyStoreTests.next(stores, after: generation, at: time),
                                 judge: RefreshReuseRule(window: window), at: time, recordingActivityOf: session)
    }

    static func lastSeen(_ stores: RefreshStores) throws -> Date? {
        try stores.sessions.find(sessionID: "sid-1")?.lastSeenAt
    }

    static func family(_ backend: StoreBackend) throws -> RefreshStores {
        let stores = try RefreshStores(backend)
        try stores.family("grant-1", session: "sid-1")
        try stores.tokens.insert(RefreshFamilyStoreTests.first(stores))
        return stores
    }

    @Test func theMemoryStoreLeavesActivityToItsCaller() throws {
        #expect(try RefreshStores(.memory).tokens.recordsSessionActivity == false)
        #expect(try RefreshStores(.sqlite).tokens.recordsSessionActivity)
    }

    /// Rotated and retried count; reuse, a revoked family and an unknown generation do not.
    @Test(arguments: sqlBackends)
    func eachOutcomeCountsOrNot(_ backend: StoreBackend) throws {
        let stores = try Self.family(backend)
        let created = try #require(try Self.lastSeen(stores))

        guard case .rotated = try Self.rotate(stores, 0, at: Sample.now + 100) else { Issue.record("no rotation"); return }
        #expect(try Self.lastSeen(stores) == Sample.now + 100, "a rotation is activity")

        guard case .retried = try Self.rotate(stores, 0, at: Sample.now + 105) else { Issue.record("no retry"); return }
        #expect(try Self.lastSeen(stores) == Sample.now + 105, "a retry inside the window is activity")

        #expect(try Self.rotate(stores, 7, at: Sample.now + 106) == .unknown)
        #expect(try Self.lastSeen(stores) == Sample.now + 105, "an unknown generation is not")

        guard case .reused = try Self.rotate(stores, 0, at: Sample.now + 200) else { Issue.record("no reuse"); return }
        #expect(try Self.lastSeen(stores) == Sample.now + 105, "reuse is not")

        guard case .revoked = try Self.rotate(stores, 1, at: Sample.now + 300) else { Issue.record("the revoked family rotated"); return }
        #expect(try Self.lastSeen(stores) == Sample.now + 105, "a revoked family is not")
        #expect(created < Sample.now + 100)
    }

    @Test(arguments: sqlBackends)
    func withoutASessionNothingIsRecorded(_ backend: StoreBackend) throws {
        let stores = try Self.family(backend)
        let before = try Self.lastSeen(stores)
        guard case .rotated = try Self.rotate(stores, 0, session: nil, at: Sample.now + 100) else { Issue.record("no rotation"); return }
        #expect(try Self.lastSeen(stores) == before)
    }

    /// An ended session keeps its last activity; a session that is gone does not fail the rotation.
    @Test(arguments: sqlBackends)
    func anEndedOrMissingSessionIsLeftAlone(_ backend: StoreBackend) throws {
        let stores = try Self.family(backend)
        try stores.sessions.end(sessionID: "sid-1", at: Sample.now + 50)
        let ended = try Self.lastSeen(stores)
        guard case .rotated = try Self.rotate(stores, 0, at: Sample.now + 100) else { Issue.record("no rotation"); return }
        #expect(try Self.lastSeen(stores) == ended)
        guard case .rotated = try Self.rotate(stores, 1, session: "sid-gone", at: Sample.now + 101) else {
            Issue.record("an unknown session failed the rotation"); return
        }
    }

    /// SQLite: activity and rotation commit together, so a failing activity write leaves the token unused.
    @Test func onSQLiteAFailedActivityWriteUndoesTheRotation() throws {
        let stores = try Self.family(.sqlite)
        let store = try #require(stores.store)
        let before = try Self.lastSeen(stores)
        try store.database.write { connection in
            _ = try connection.run("""
                CREATE TEMP TRIGGER fail_activity BEFORE UPDATE OF last_seen_at ON main.sessions
                BEGIN SELECT RAISE(ABORT, 'injected failure while recording activity'); END
                """)
        }
        #expect(throws: StorageError.self) { try Self.rotate(stores, 0, at: Sample.now + 100) }
        #expect(try stores.tokens.find(.family(grantID: "grant-1", generation: 0))?.isUnused == true)
        #expect(try Self.lastSeen(stores) == before)
        try store.database.write { connection in _ = try connection.run("DROP TRIGGER temp.fail_activity") }
        guard case .rotated = try Self.rotate(stores, 0, at: Sample.now + 101) else { Issue.record("no rotation after the fault"); return }
        #expect(try Self.lastSeen(stores) == Sample.now + 101)
    }

    /// PostgreSQL: the rotation is committed by its own statement before the activity is written, so
    /// a failing activity write is dropped and the client still gets its successor.
    @Test func onPostgreSQLAFailedActivityWriteKeepsTheRotation() throws {
        guard !PostgresCluster.isSkipped else { return }
        let stores = try Self.family(.postgresql)
        let postgres = try #require(stores.postgres)
        let before = try Self.lastSeen(stores)
        try postgres.database.write { connection in
            try connection.execute("""
                CREATE FUNCTION fail_activity() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'injected failure while recording activity'; END $$;
                CREATE TRIGGER fail_activity BEFORE UPDATE OF last_seen_at ON sessions FOR EACH ROW EXECUTE FUNCTION fail_activity()
                """)
        }
        guard case .rotated = try Self.rotate(stores, 0, at: Sample.now + 100) else { Issue.record("no rotation"); return }
        #expect(try Self.lastSeen(stores) == before)
        #expect(try stores.tokens.find(.family(grantID: "grant-1", generation: 1))?.isUnused == true)
    }
}
