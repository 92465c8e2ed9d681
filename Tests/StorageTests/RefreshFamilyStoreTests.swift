import Foundation
import Model
import OIDC
import SQLite
import Storage
import Testing
import TestSupport

/// One-row refresh-token families (migration 0017) on every backend: what a rotation, a retry, a
/// reuse and a revocation do to the row; 50 concurrent rotations; an older token rotating into a
/// family all or nothing (negative-tests K03).
@Suite("Refresh-token family store")
struct RefreshFamilyStoreTests {
    static let salt = Array(repeating: UInt8(9), count: 16)

    static func first(_ stores: RefreshStores, grant: String = "grant-1") -> RefreshToken {
        RefreshToken(tokenHash: RefreshTokenKey.name(grantID: grant, generation: 0), grantID: grant, clientID: stores.client.clientID,
                     userID: stores.user.userID, scope: "openid offline_access", issuedAt: Sample.now, expiresAt: Sample.now + 2_592_000,
                     generation: 0, familySalt: salt)
    }

    static func next(_ stores: RefreshStores, after generation: Int, grant: String = "grant-1", at time: Date) -> RefreshToken {
        RefreshToken(tokenHash: RefreshTokenKey.name(grantID: grant, generation: generation + 1), grantID: grant,
                     clientID: stores.client.clientID, userID: stores.user.userID, scope: "openid offline_access", issuedAt: time,
                     expiresAt: Sample.now + 2_592_000, generation: generation + 1, familySalt: salt)
    }

    static func rotate(_ stores: RefreshStores, _ generation: Int, window: Int = 10, at time: Date) throws -> RefreshRotation {
        try stores.tokens.rotate(.family(grantID: "grant-1", generation: generation), successor: next(stores, after: generation, at: time),
                                 judge: RefreshReuseRule(window: window), at: time)
    }

    @Test(arguments: StoreBackend.allCases)
    func aFamilyIsOneRowSeenFromEachGeneration(_ backend: StoreBackend) throws {
        let stores = try RefreshStores(backend)
        try stores.family("grant-1", session: "sid-1")
        try stores.tokens.insert(Self.first(stores))
        #expect(throws: StorageError.self) { try stores.tokens.insert(Self.first(stores)) }
        let live = try #require(try stores.tokens.find(.family(grantID: "grant-1", generation: 0)))
        #expect(live.isUnused && live.familySalt == Self.salt && live.generation == 0 && live.expiresAt == Sample.now + 2_592_000)
        #expect(live.clientID == stores.client.clientID && live.userID == stores.user.userID && live.scope == "openid offline_access")
        #expect(try stores.tokens.find(.family(grantID: "grant-1", generation: 1)) == nil, "a future generation is unknown")
        #expect(try stores.tokens.find(.family(grantID: "grant-2", generation: 0)) == nil, "an unknown grant")

        guard case .rotated(let presented, let successor) = try Self.rotate(stores, 0, at: Sample.now + 5) else {
            Issue.record("no rotation"); return
        }
        #expect(presented.rotatedAt == Sample.now + 5 && presented.successorHash == "rt2.grant-1.1")
        #expect(successor.generation == 1 && successor.isUnused && successor.familySalt == Self.salt && successor.issuedAt == Sample.now + 5)
        #expect(try stores.tokens.find(.family(grantID: "grant-1", generation: 1)) == successor)
        // Retries inside the window answer the same successor; nothing changes.
        #expect(try Self.rotate(stores, 0, at: Sample.now + 9) == .retried(presented: presented, successor: successor))
        #expect(try stores.tokens.find(.family(grantID: "grant-1", generation: 1))?.isUnused == true)
        // Generation 1 rotates on; then generation 0, inside its window, is reuse (its successor was used).
        guard case .rotated = try Self.rotate(stores, 1, at: Sample.now + 10) else { Issue.record("1 did not rotate"); return }
        guard case .reused = try Self.rotate(stores, 0, at: Sample.now + 11) else { Issue.record("expected reuse"); return }
        #expect(try stores.grants.find(grantID: "grant-1")?.revokeReason == "refresh token reused")
        #expect(try stores.tokens.find(.family(grantID: "grant-1", generation: 2))?.revokedAt != nil)
        guard case .revoked = try Self.rotate(stores, 2, at: Sample.now + 12) else { Issue.record("a revoked family rotated"); return }
        #expect(try Self.rotate(stores, 7, at: Sample.now + 12) == .unknown)
    }

    /// RFC 7009 / logout / idp-admin: revoking the grant, by any path, revokes the family row with it.
    @Test(arguments: StoreBackend.allCases)
    func revokingTheGrantRevokesTheFamily(_ backend: StoreBackend) throws {
        let stores = try RefreshStores(backend)
        try stores.family("grant-1", session: "sid-1")
        try stores.tokens.insert(Self.first(stores))
        try stores.grants.revoke(grantID: "grant-1", at: Sample.now + 3, reason: "logout")
        #expect(try stores.tokens.find(.family(grantID: "grant-1", generation: 0))?.revokedAt == Sample.now + 3)
        guard case .revoked = try Self.rotate(stores, 0, at: Sample.now + 4) else { Issue.record("a revoked family rotated"); return }
        #expect(try stores.tokens.liveCountsBySession(userID: stores.user.userID, at: Sample.now + 4) == [:])
    }

    @Test(arguments: StoreBackend.allCases)
    func liveFamiliesCountOncePerSession(_ backend: StoreBackend) throws {
        let stores = try RefreshStores(backend)
        try stores.family("grant-1", session: "sid-1")
        try stores.family("grant-2", session: "sid-1")
        try stores.tokens.insert(Self.first(stores))
        try stores.tokens.insert(Self.first(stores, grant: "grant-2"))
        _ = try Self.rotate(stores, 0, at: Sample.now + 1)
        #expect(try stores.tokens.liveCountsBySession(userID: stores.user.userID, at: Sample.now + 2) == ["sid-1": 2])
        #expect(try stores.tokens.liveCountsBySession(userID: stores.user.userID, at: Sample.now + 2_592_001) == [:])
    }

    /// D02: 50 rotations of one generation at once, half through a second connection set (SQLite) or
    /// pool (PostgreSQL, as another node): exactly one UPDATE changes the row.
    @Test(arguments: StoreBackend.allCases, [true, false])
    func fiftyConcurrentRotationsRotateOnce(_ backend: StoreBackend, window: Bool) throws {
        let stores = try RefreshStores(backend)
        try stores.family("grant-1", session: "sid-1")
        try stores.tokens.insert(Self.first(stores))
        let second: Store? = try stores.store.map { try Store(path: $0.path) }
        defer { second?.close() }
        let secondNode: PostgresStore? = try stores.postgres.map { try makeSecondPostgresStore(like: $0) }
        defer { secondNode?.close() }
        let secondTokens: any RefreshTokenStore = second.map { SQLiteRefreshTokenStore(store: $0) }
            ?? secondNode.map { SQLiteRefreshTokenStore(store: $0) } ?? stores.tokens
        let outcomes = Collected<[Result<RefreshRotation, StorageError>]>([])
        DispatchQueue.concurrentPerform(iterations: 50) { index in
            let tokens = index.isMultiple(of: 2) ? stores.tokens : secondTokens
            let outcome: Result<RefreshRotation, StorageError>
            do throws(StorageError) {
                outcome = .success(try tokens.rotate(.family(grantID: "grant-1", generation: 0),
                                                     successor: Self.next(stores, after: 0, at: Sample.now),
                                                     judge: RefreshReuseRule(window: window ? 10 : 0), at: Sample.now))
            } catch {
                outcome = .failure(error)
            }
            outcomes.withLock { $0.append(outcome) }
        }
        let values = outcomes.withLock { $0 }.compactMap { try? $0.get() }
        #expect(values.count == 50)
        #expect(values.filter { if case .rotated = $0 { true } else { false } }.count == 1)
        let current = try #require(try stores.tokens.find(.family(grantID: "grant-1", generation: 1)))
        #expect(try stores.tokens.find(.family(grantID: "grant-1", generation: 2)) == nil, "rotated exactly once")
        if window {
            #expect(values.filter { if case .retried(_, let next) = $0 { next.generation == 1 } else { false } }.count == 49)
            #expect(current.isUnused)
        } else {
            #expect(values.filter { if case .reused = $0 { true } else if case .revoked = $0 { true } else { false } }.count == 49)
            #expect(current.revokedAt != nil)
        }
    }

    /// An older token rotating into a family, and K03: when the family row cannot be written (here a
    /// row already there: a unique key), the older token's consumption is undone; it stays live.
    @Test(arguments: StoreBackend.allCases)
    func anOlderTokenRotatesIntoAFamilyAllOrNothing(_ backend: StoreBackend) throws {
        let stores = try RefreshStores(backend)
        try stores.family("grant-1", session: "sid-1")
        var older = stores.token("rt-0")
        older.generation = 3
        try stores.tokens.insert(older)
        let successor = Self.next(stores, after: 3, at: Sample.now + 1)
        var blocker = Self.first(stores)
        blocker.generation = 9
        try stores.tokens.insert(blocker)
        #expect(throws: StorageError.self) {
            try stores.tokens.rotate(RefreshTokenKey(tokenHash: "rt-0", position: .init(grantID: "grant-1", generation: 3)),
                                     successor: successor, judge: RefreshReuseRule(window: 10), at: Sample.now + 1)
        }
        let after = try #require(try stores.tokens.find(RefreshTokenKey(tokenHash: "rt-0", position: .init(grantID: "grant-1", generation: 3))))
        #expect(after.isUnused && after.successorHash == nil && after.lastUsedAt == Sample.now)
        // The row in the way is untouched.
        #expect(try stores.tokens.find(.family(grantID: "grant-1", generation: 9))?.isUnused == true)
        #expect(try stores.tokens.find(.family(grantID: "grant-1", generation: 10)) == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func anOlderTokenRotatesIntoAFamily(_ backend: StoreBackend) throws {
        let stores = try RefreshStores(backend)
        try stores.family("grant-1", session: "sid-1")
        try stores.tokens.insert(stores.token("rt-0"))
        let successor = Self.next(stores, after: 0, at: Sample.now + 1)
        guard case .rotated(let presented, let stored) = try stores.tokens.rotate(tokenHash: "rt-0", successor: successor,
                                                                                 judge: RefreshReuseRule(window: 10), at: Sample.now + 1) else {
            Issue.record("no rotation"); return
        }
        #expect(presented.successorHash == "rt2.grant-1.1" && stored.familySalt == Self.salt)
        let live = try #require(try stores.tokens.find(.family(grantID: "grant-1", generation: 1)))
        #expect(live.isUnused && live.expiresAt == Sample.now + 2_592_000 && live.familySalt == Self.salt)
        // A retry of the older token answers the family's successor (the stored salt, not a new one).
        var another = successor
        another.familySalt = Array(repeating: 1, count: 16)
        guard case .retried(_, let retried) = try stores.tokens.rotate(tokenHash: "rt-0", successor: another,
                                                                      judge: RefreshReuseRule(window: 10), at: Sample.now + 2) else {
            Issue.record("no retry"); return
        }
        #expect(retried.familySalt == Self.salt && retried.generation == 1)
        // The older token's reuse, after the window, still revokes the whole family.
        guard case .reused = try stores.tokens.rotate(tokenHash: "rt-0", successor: another, judge: RefreshReuseRule(window: 10),
                                                      at: Sample.now + 30) else { Issue.record("no reuse"); return }
        #expect(try stores.tokens.find(.family(grantID: "grant-1", generation: 1))?.revokedAt != nil)
    }
}
