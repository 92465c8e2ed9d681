import Foundation
import Model
import OIDC
import SQLite
import Storage
import Testing
import TestSupport

/// A session's last activity is read from its refresh-token families (`Session.lastSeenAt`): a
/// rotation writes its family's row and nothing of the session (issue #18).
@Suite("A session's refresh activity")
struct RefreshActivityTests {
    static func rotate(_ stores: RefreshStores, _ generation: Int, grant: String = "grant-1", window: Int = 10,
                       at time: Date) throws -> RefreshRotation {
        try stores.tokens.rotate(.family(grantID: grant, generation: generation),
                                 successor: RefreshFamilyStoreTests.next(stores, after: generation, grant: grant, at: time),
                                 judge: RefreshReuseRule(window: window), at: time)
    }

    static func lastSeen(_ stores: RefreshStores, _ sessionID: String = "sid-1") throws -> Date? {
        try stores.sessions.find(sessionID: sessionID)?.lastSeenAt
    }

    static func family(_ backend: StoreBackend, issuedAt: Date = Sample.now) throws -> RefreshStores {
        let stores = try RefreshStores(backend)
        try stores.family("grant-1", session: "sid-1")
        var first = RefreshFamilyStoreTests.first(stores)
        first.issuedAt = issuedAt
        try stores.tokens.insert(first)
        return stores
    }

    /// A rotation counts; a retry, an unknown generation, reuse and a revoked family rotate nothing and do not.
    @Test(arguments: StoreBackend.allCases)
    func eachOutcomeCountsOrNot(_ backend: StoreBackend) throws {
        let stores = try Self.family(backend)
        #expect(try Self.lastSeen(stores) == Sample.now)

        guard case .rotated = try Self.rotate(stores, 0, at: Sample.now + 100) else { Issue.record("no rotation"); return }
        #expect(try Self.lastSeen(stores) == Sample.now + 100, "a rotation is activity")

        guard case .retried = try Self.rotate(stores, 0, at: Sample.now + 105) else { Issue.record("no retry"); return }
        #expect(try Self.lastSeen(stores) == Sample.now + 100, "a retry returns the same successor and rotates nothing")

        #expect(try Self.rotate(stores, 7, at: Sample.now + 106) == .unknown)
        #expect(try Self.lastSeen(stores) == Sample.now + 100, "an unknown generation is not")

        guard case .reused = try Self.rotate(stores, 0, at: Sample.now + 200) else { Issue.record("no reuse"); return }
        #expect(try Self.lastSeen(stores) == Sample.now + 100, "reuse is not")

        guard case .revoked = try Self.rotate(stores, 1, at: Sample.now + 300) else { Issue.record("the revoked family rotated"); return }
        #expect(try Self.lastSeen(stores) == Sample.now + 100, "a revoked family is not")
    }

    /// The latest of the session's families counts, the same in every read of the session; another
    /// session's family does not.
    @Test(arguments: StoreBackend.allCases)
    func theLatestFamilyOfTheSessionCounts(_ backend: StoreBackend) throws {
        let stores = try Self.family(backend)
        try stores.family("grant-2", session: "sid-1")
        try stores.tokens.insert(RefreshFamilyStoreTests.first(stores, grant: "grant-2"))
        try stores.family("grant-3", session: "sid-3")
        try stores.tokens.insert(RefreshFamilyStoreTests.first(stores, grant: "grant-3"))

        guard case .rotated = try Self.rotate(stores, 0, grant: "grant-2", at: Sample.now + 50) else { Issue.record("no rotation"); return }
        guard case .rotated = try Self.rotate(stores, 0, grant: "grant-1", at: Sample.now + 40) else { Issue.record("no rotation"); return }
        guard case .rotated = try Self.rotate(stores, 0, grant: "grant-3", at: Sample.now + 90) else { Issue.record("no rotation"); return }

        #expect(try Self.lastSeen(stores) == Sample.now + 50)
        #expect(try stores.sessions.find(cookieHash: "cookie-sid-1")?.lastSeenAt == Sample.now + 50)
        #expect(try stores.sessions.list(userID: stores.user.userID).first { $0.sessionID == "sid-1" }?.lastSeenAt == Sample.now + 50)
        #expect(try Self.lastSeen(stores, "sid-3") == Sample.now + 90)
    }

    /// A family first issued after the sign-in counts from its issue; a session's stored activity
    /// later than any family's stays.
    @Test(arguments: StoreBackend.allCases)
    func aFirstIssueCountsAndTheStoredActivityIsAFloor(_ backend: StoreBackend) throws {
        #expect(try Self.lastSeen(try Self.family(backend, issuedAt: Sample.now + 30)) == Sample.now + 30)
        #expect(try Self.lastSeen(try Self.family(backend, issuedAt: Sample.now - 30)) == Sample.now)
    }

    /// Refreshes after the session ended (an application whose tokens survive logout) are not the session's.
    @Test(arguments: StoreBackend.allCases)
    func activityAfterTheEndIsNotTheSessions(_ backend: StoreBackend) throws {
        let stores = try Self.family(backend)
        guard case .rotated = try Self.rotate(stores, 0, at: Sample.now + 20) else { Issue.record("no rotation"); return }
        try stores.sessions.end(sessionID: "sid-1", at: Sample.now + 50)
        guard case .rotated = try Self.rotate(stores, 1, at: Sample.now + 100) else { Issue.record("no rotation"); return }
        #expect(try Self.lastSeen(stores) == Sample.now + 50)
    }

    /// SQLite: the rotation writes no row of the session. With every write of the session refused,
    /// the token still rotates, and the session still shows the rotation.
    @Test func onSQLiteARotationWritesNothingOfTheSession() throws {
        let stores = try Self.family(.sqlite)
        let store = try #require(stores.store)
        try store.database.write { connection in
            _ = try connection.run("""
                CREATE TEMP TRIGGER refuse_session_writes BEFORE UPDATE ON main.sessions
                BEGIN SELECT RAISE(ABORT, 'a rotation wrote the session'); END
                """)
        }
        guard case .rotated = try Self.rotate(stores, 0, at: Sample.now + 100) else { Issue.record("no rotation"); return }
        #expect(try Self.lastSeen(stores) == Sample.now + 100)
    }

    /// The family reader reads the session only when asked to.
    @Test(arguments: StoreBackend.allCases.filter { $0 != .memory })
    func theFamilyReaderReadsTheSessionOnlyWhenAsked(_ backend: StoreBackend) throws {
        let stores = try Self.family(backend)
        let reader: SQLiteRefreshTokenFamilyReader
        if let store = stores.store { reader = SQLiteRefreshTokenFamilyReader(store: store) } else {
            reader = SQLiteRefreshTokenFamilyReader(store: try #require(stores.postgres))
        }
        let key = RefreshTokenKey.family(grantID: "grant-1", generation: 0)
        #expect(try reader.family(key, includingSession: true)?.session?.sessionID == "sid-1")
        let without = try #require(try reader.family(key, includingSession: false))
        #expect(without.session == nil)
        #expect(without.user?.userID == stores.user.userID && without.grant?.grantID == "grant-1")
    }
}
