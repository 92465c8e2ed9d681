import Foundation
import Model
import OIDC
import SQLite
import Storage
import Testing
import TestSupport

/// One backend's stores for the refresh-token tests, seeded with a client, a user, a session and a grant.
final class RefreshStores: @unchecked Sendable {
    let clients: any ClientStore
    let users: any UserStore
    let sessions: any SessionStore
    let grants: any GrantStore
    let tokens: any RefreshTokenStore
    /// SQLite only: the store, for fault injection and a second connection set.
    let store: Store?
    /// PostgreSQL only: the store, for a second node's pool over the same database.
    let postgres: PostgresStore?
    let memory: MemoryRefreshTokenStore?
    private let keepAlive: [AnyObject]

    let client = Sample.client()
    let user = Sample.user()

    init(_ backend: StoreBackend) throws {
        switch backend {
        case .sqlite:
            let (store, directory) = try makeTestStore()
            clients = SQLiteClientStore(store: store)
            users = SQLiteUserStore(store: store)
            sessions = SQLiteSessionStore(store: store)
            grants = SQLiteGrantStore(store: store)
            tokens = SQLiteRefreshTokenStore(store: store)
            self.store = store
            postgres = nil
            memory = nil
            keepAlive = [store, directory]
        case .postgresql:
            let store = try makeTestPostgresStore()
            clients = SQLiteClientStore(store: store)
            users = SQLiteUserStore(store: store)
            sessions = SQLiteSessionStore(store: store)
            grants = SQLiteGrantStore(store: store)
            tokens = SQLiteRefreshTokenStore(store: store)
            self.store = nil
            postgres = store
            memory = nil
            keepAlive = [store]
        case .memory:
            let database = MemoryDatabase()
            clients = MemoryClientStore(database: database)
            users = MemoryUserStore(database: database)
            sessions = MemorySessionStore(database: database)
            grants = MemoryGrantStore(database: database)
            let memory = MemoryRefreshTokenStore(database: database)
            tokens = memory
            self.memory = memory
            store = nil
            postgres = nil
            keepAlive = [database]
        }
        try clients.create(client)
        try users.create(user)
    }

    /// A session with one grant; returns the grant.
    @discardableResult
    func family(_ grantID: String, session sessionID: String?) throws -> Grant {
        if let sessionID, try sessions.find(sessionID: sessionID) == nil {
            try sessions.create(Sample.session(sessionID, user: user, cookieHash: "cookie-" + sessionID))
        }
        let grant = Grant(grantID: grantID, clientID: client.clientID, userID: user.userID, sessionID: sessionID,
                          scope: "openid offline_access", authTime: Sample.now, createdAt: Sample.now)
        try grants.create(grant)
        return grant
    }

    func token(_ hash: String, grant: String = "grant-1", issuedAt: Date = Sample.now) -> RefreshToken {
        RefreshToken(tokenHash: hash, grantID: grant, clientID: client.clientID, userID: user.userID, scope: "openid offline_access",
                     issuedAt: issuedAt, expiresAt: Sample.now + 2_592_000)
    }
}

@Suite("Refresh token store")
struct RefreshTokenStoreTests {
    @Test(arguments: StoreBackend.allCases)
    func insertAndFind(_ backend: StoreBackend) throws {
        let stores = try RefreshStores(backend)
        try stores.family("grant-1", session: "sid-1")
        let token = stores.token("rt-0")
        try stores.tokens.insert(token)
        #expect(try stores.tokens.find(tokenHash: "rt-0") == token)
        #expect(try stores.tokens.find(tokenHash: "nope") == nil)
        #expect(throws: StorageError.self) { try stores.tokens.insert(token) }
    }

    @Test(arguments: StoreBackend.allCases)
    func rotationOutcomes(_ backend: StoreBackend) throws {
        let stores = try RefreshStores(backend)
        try stores.family("grant-1", session: "sid-1")
        try stores.tokens.insert(stores.token("rt-0"))
        let successor = stores.token("rt-1", issuedAt: Sample.now + 5)

        let first = try stores.tokens.rotate(tokenHash: "rt-0", successor: successor, judge: RefreshReuseRule(window: 10), at: Sample.now + 5)
        guard case .rotated(let presented, let stored) = first else { Issue.record("\(first)"); return }
        #expect(presented.rotatedAt == Sample.now + 5 && presented.lastUsedAt == Sample.now + 5 && presented.successorHash == "rt-1")
        #expect(stored == successor)
        #expect(try stores.tokens.find(tokenHash: "rt-1") == successor)

        // Inside the window with the same successor: a retry, nothing changes.
        let retry = try stores.tokens.rotate(tokenHash: "rt-0", successor: stores.token("rt-1", issuedAt: Sample.now + 15),
                                             judge: RefreshReuseRule(window: 10), at: Sample.now + 15)
        #expect(retry == .retried(presented: presented, successor: successor))
        // Reuse outcomes are `reuseRevokesTheFamilyInTheSameStep`'s rows: each revokes the family.

        // Once the successor was used, a retry of the original is reuse even inside the window.
        guard case .rotated = try stores.tokens.rotate(tokenHash: "rt-1", successor: stores.token("rt-2"), judge: RefreshReuseRule(window: 10),
                                                       at: Sample.now + 6) else { Issue.record("rt-1 did not rotate"); return }
        guard case .reused = try stores.tokens.rotate(tokenHash: "rt-0", successor: successor, judge: RefreshReuseRule(window: 10), at: Sample.now + 7) else {
            Issue.record("expected reuse"); return
        }
        #expect(try stores.tokens.rotate(tokenHash: "unknown", successor: stores.token("rt-y"), judge: RefreshReuseRule(window: 10), at: Sample.now) == .unknown)
        #expect(try stores.tokens.find(tokenHash: "rt-y") == nil)
    }

    /// A different successor (another key), outside the window, or the window off: reuse. The store
    /// revokes the family in the same transaction (RFC 9700 §4.14.2): the grant, the live successor
    /// and the presented token, and nothing of another family.
    @Test(arguments: StoreBackend.allCases, [("rt-x", 10, 6.0), ("rt-1", 10, 16.0), ("rt-1", 0, 5.0)])
    func reuseRevokesTheFamilyInTheSameStep(_ backend: StoreBackend, row: (successor: String, window: Int, after: TimeInterval)) throws {
        let stores = try RefreshStores(backend)
        try stores.family("grant-1", session: "sid-1")
        try stores.family("grant-2", session: "sid-1")
        try stores.tokens.insert(stores.token("rt-0"))
        try stores.tokens.insert(stores.token("bystander", grant: "grant-2"))
        let successor = stores.token("rt-1", issuedAt: Sample.now + 5)
        guard case .rotated(let presented, _) = try stores.tokens.rotate(tokenHash: "rt-0", successor: successor,
                                                                         judge: RefreshReuseRule(window: 10), at: Sample.now + 5) else {
            Issue.record("no rotation"); return
        }
        let reusedAt = Sample.now + row.after
        #expect(try stores.tokens.rotate(tokenHash: "rt-0", successor: stores.token(row.successor), judge: RefreshReuseRule(window: row.window),
                                         at: reusedAt) == .reused(presented))
        #expect(try stores.tokens.find(tokenHash: "rt-x") == nil)
        let grant = try #require(try stores.grants.find(grantID: "grant-1"))
        #expect(grant.revokedAt == reusedAt)
        #expect(grant.revokeReason == "refresh token reused")
        #expect(try stores.tokens.find(tokenHash: "rt-1")?.revokedAt == reusedAt)
        #expect(try stores.tokens.find(tokenHash: "rt-0")?.revokedAt == reusedAt)
        #expect(try stores.tokens.find(tokenHash: "bystander")?.revokedAt == nil)
        #expect(try stores.grants.find(grantID: "grant-2")?.revokedAt == nil)
        guard case .revoked = try stores.tokens.rotate(tokenHash: "rt-1", successor: stores.token("rt-2"), judge: RefreshReuseRule(window: 10),
                                                       at: reusedAt + 1) else { Issue.record("the successor still rotates"); return }
    }

    /// The reuse decision and the family's revocation are one transaction: when revoking the grant
    /// fails, the tokens are not revoked either, and the next attempt finds the same reuse.
    @Test func aFailedFamilyRevocationUndoesTheReuseStep() throws {
        let stores = try RefreshStores(.sqlite)
        let store = try #require(stores.store)
        try stores.family("grant-1", session: "sid-1")
        try stores.tokens.insert(stores.token("rt-0"))
        guard case .rotated = try stores.tokens.rotate(tokenHash: "rt-0", successor: stores.token("rt-1"), judge: RefreshReuseRule(window: 0),
                                                       at: Sample.now) else { Issue.record("no rotation"); return }
        try store.database.write { connection in
            _ = try connection.run("""
                CREATE TEMP TRIGGER fail_revoke BEFORE UPDATE OF revoked_at ON main.grants
                BEGIN SELECT RAISE(ABORT, 'injected failure while revoking the family'); END
                """)
        }
        #expect(throws: StorageError.self) {
            try stores.tokens.rotate(tokenHash: "rt-0", successor: stores.token("rt-1"), judge: RefreshReuseRule(window: 0), at: Sample.now + 1)
        }
        #expect(try stores.tokens.find(tokenHash: "rt-1")?.revokedAt == nil)
        #expect(try stores.grants.find(grantID: "grant-1")?.revokedAt == nil)
        try store.database.write { connection in _ = try connection.run("DROP TRIGGER temp.fail_revoke") }
        guard case .reused = try stores.tokens.rotate(tokenHash: "rt-0", successor: stores.token("rt-1"), judge: RefreshReuseRule(window: 0),
                                                      at: Sample.now + 2) else { Issue.record("reuse not detected again"); return }
        #expect(try stores.tokens.find(tokenHash: "rt-1")?.revokedAt == Sample.now + 2)
    }

    /// Revoking the grant revokes its refresh tokens; a revoked token or successor reports `.revoked`.
    @Test(arguments: StoreBackend.allCases)
    func revocation(_ backend: StoreBackend) throws {
        let stores = try RefreshStores(backend)
        try stores.family("grant-1", session: "sid-1")
        try stores.family("grant-2", session: "sid-1")
        try stores.tokens.insert(stores.token("rt-0"))
        try stores.tokens.insert(stores.token("other", grant: "grant-2"))
        guard case .rotated = try stores.tokens.rotate(tokenHash: "rt-0", successor: stores.token("rt-1"), judge: RefreshReuseRule(window: 10),
                                                       at: Sample.now) else { Issue.record("no rotation"); return }
        try stores.grants.revoke(grantID: "grant-1", at: Sample.now + 1, reason: "test")
        #expect(try stores.tokens.find(tokenHash: "rt-1")?.revokedAt == Sample.now + 1)
        #expect(try stores.tokens.find(tokenHash: "other")?.revokedAt == nil)
        guard case .revoked = try stores.tokens.rotate(tokenHash: "rt-1", successor: stores.token("rt-2"), judge: RefreshReuseRule(window: 10),
                                                       at: Sample.now + 2) else { Issue.record("expected revoked"); return }
        guard case .revoked = try stores.tokens.rotate(tokenHash: "rt-0", successor: stores.token("rt-1"), judge: RefreshReuseRule(window: 10),
                                                       at: Sample.now + 2) else { Issue.record("expected revoked"); return }
        try stores.tokens.revokeFamily(grantID: "grant-2", at: Sample.now + 3)
        #expect(try stores.tokens.find(tokenHash: "other")?.revokedAt == Sample.now + 3)
        try stores.tokens.revokeFamily(grantID: "grant-2", at: Sample.now + 4)
        #expect(try stores.tokens.find(tokenHash: "other")?.revokedAt == Sample.now + 3)
    }

    @Test(arguments: StoreBackend.allCases)
    func liveCountsBySession(_ backend: StoreBackend) throws {
        let stores = try RefreshStores(backend)
        try stores.family("grant-a", session: "sid-a")
        try stores.family("grant-b", session: "sid-b")
        try stores.family("grant-b2", session: "sid-b")
        try stores.family("grant-dead", session: "sid-c")
        try stores.tokens.insert(stores.token("a0", grant: "grant-a"))
        _ = try stores.tokens.rotate(tokenHash: "a0", successor: stores.token("a1", grant: "grant-a"), judge: RefreshReuseRule(window: 10), at: Sample.now)
        try stores.tokens.insert(stores.token("b0", grant: "grant-b"))
        try stores.tokens.insert(stores.token("b1", grant: "grant-b2"))
        try stores.tokens.insert(stores.token("c0", grant: "grant-dead"))
        try stores.grants.revoke(grantID: "grant-dead", at: Sample.now, reason: "test")
        #expect(try stores.tokens.liveCountsBySession(userID: stores.user.userID, at: Sample.now + 1) == ["sid-a": 1, "sid-b": 2])
        #expect(try stores.tokens.liveCountsBySession(userID: stores.user.userID, at: Sample.now + 2_592_000) == [:])
        #expect(try stores.tokens.liveCountsBySession(userID: "someone-else", at: Sample.now) == [:])
    }

    /// D02: 50 simultaneous rotations of one token make exactly one successor. With the window on, the
    /// other 49 are retries of that same successor; with it off, the first of them is reuse, which revokes
    /// the family at once, so the rest find it revoked. SQLite runs half of them through a second `Store`
    /// on the same file, as another process would.
    @Test(arguments: StoreBackend.allCases, [true, false])
    func fiftyConcurrentRotations(_ backend: StoreBackend, window: Bool) throws {
        let stores = try RefreshStores(backend)
        try stores.family("grant-1", session: "sid-1")
        try stores.tokens.insert(stores.token("rt-0"))
        let second: Store? = try stores.store.map { try Store(path: $0.path) }
        defer { second?.close() }
        // PostgreSQL: the other half through a second pool, as another node would.
        let secondNode: PostgresStore? = try stores.postgres.map { try makeSecondPostgresStore(like: $0) }
        defer { secondNode?.close() }
        let secondTokens: any RefreshTokenStore = second.map { SQLiteRefreshTokenStore(store: $0) }
            ?? secondNode.map { SQLiteRefreshTokenStore(store: $0) } ?? stores.tokens
        let successor = stores.token("rt-1", issuedAt: Sample.now)
        let outcomes = Collected<[Result<RefreshRotation, StorageError>]>([])
        DispatchQueue.concurrentPerform(iterations: 50) { index in
            let tokens = index.isMultiple(of: 2) ? stores.tokens : secondTokens
            let outcome: Result<RefreshRotation, StorageError>
            do throws(StorageError) {
                outcome = .success(try tokens.rotate(tokenHash: "rt-0", successor: successor, judge: RefreshReuseRule(window: window ? 10 : 0), at: Sample.now))
            } catch {
                outcome = .failure(error)
            }
            outcomes.withLock { $0.append(outcome) }
        }
        let all = outcomes.withLock { $0 }
        #expect(all.count == 50)
        let values = all.compactMap { try? $0.get() }
        #expect(values.count == 50, "storage errors: \(all.filter { (try? $0.get()) == nil })")
        let rotated = values.filter { if case .rotated = $0 { true } else { false } }
        let retried = values.filter { if case .retried(_, let next) = $0 { next.tokenHash == "rt-1" } else { false } }
        let reused = values.filter { if case .reused = $0 { true } else { false } }
        let revoked = values.filter { if case .revoked = $0 { true } else { false } }
        #expect(rotated.count == 1)
        #expect(try stores.tokens.find(tokenHash: "rt-0")?.successorHash == "rt-1")
        if window {
            #expect(retried.count == 49)
            #expect(try stores.tokens.find(tokenHash: "rt-1")?.isUnused == true)
        } else {
            #expect(reused.count >= 1 && reused.count + revoked.count == 49)
            #expect(try stores.tokens.find(tokenHash: "rt-1")?.revokedAt != nil)
        }
    }

    /// K03: a failure after the presented token was consumed undoes the consumption; it stays live.
    @Test(arguments: StoreBackend.allCases)
    func aFailedSuccessorInsertLeavesTheOldTokenLive(_ backend: StoreBackend) throws {
        let stores = try RefreshStores(backend)
        try stores.family("grant-1", session: "sid-1")
        try stores.tokens.insert(stores.token("rt-0"))
        if let store = stores.store {
            try store.database.write { connection in
                _ = try connection.run("""
                    CREATE TEMP TRIGGER fail_successor BEFORE INSERT ON main.refresh_tokens
                    BEGIN SELECT RAISE(ABORT, 'injected failure after consuming the presented token'); END
                    """)
            }
        } else if let postgres = stores.postgres {
            try postgres.database.write { connection in
                try connection.execute("""
                    CREATE FUNCTION fail_successor() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN RAISE EXCEPTION 'injected failure after consuming the presented token'; END $$;
                    CREATE TRIGGER fail_successor BEFORE INSERT ON refresh_tokens FOR EACH ROW EXECUTE FUNCTION fail_successor()
                    """)
            }
        } else {
            stores.memory?.failNextSuccessorInsert = true
        }
        #expect(throws: StorageError.self) {
            try stores.tokens.rotate(tokenHash: "rt-0", successor: stores.token("rt-1"), judge: RefreshReuseRule(window: 10), at: Sample.now + 1)
        }
        let after = try #require(try stores.tokens.find(tokenHash: "rt-0"))
        #expect(after.isUnused && after.successorHash == nil && after.lastUsedAt == Sample.now)
        #expect(try stores.tokens.find(tokenHash: "rt-1") == nil)

        if let store = stores.store {
            try store.database.write { connection in _ = try connection.run("DROP TRIGGER temp.fail_successor") }
        }
        try stores.postgres?.database.write { connection in try connection.execute("DROP TRIGGER fail_successor ON refresh_tokens") }
        guard case .rotated = try stores.tokens.rotate(tokenHash: "rt-0", successor: stores.token("rt-1"), judge: RefreshReuseRule(window: 10),
                                                       at: Sample.now + 2) else { Issue.record("no rotation after the fault"); return }
    }

    /// K03 with a real constraint: the successor's insert hits a unique key after the UPDATE ran.
    @Test func aConstraintFailureRollsBackTheConsumption() throws {
        let stores = try RefreshStores(.sqlite)
        try stores.family("grant-1", session: "sid-1")
        try stores.tokens.insert(stores.token("rt-0"))
        try stores.tokens.insert(stores.token("taken"))
        #expect(throws: StorageError.self) {
            try stores.tokens.rotate(tokenHash: "rt-0", successor: stores.token("taken"), judge: RefreshReuseRule(window: 10), at: Sample.now + 1)
        }
        #expect(try stores.tokens.find(tokenHash: "rt-0")?.isUnused == true)
    }

    /// `sessions revoke` and `tokens revoke` underneath: one transaction per call, scoped exactly.
    @Test func sessionRevocationIsScopedToItsSession() throws {
        let stores = try RefreshStores(.sqlite)
        let store = try #require(stores.store)
        let otherClient = Sample.client("client-2")
        try stores.clients.create(otherClient)
        try stores.family("grant-phone", session: "sid-phone")
        try stores.family("grant-laptop", session: "sid-laptop")
        try stores.grants.create(Grant(grantID: "grant-other-app", clientID: otherClient.clientID, userID: stores.user.userID,
                                       sessionID: "sid-laptop", scope: "openid offline_access", authTime: Sample.now, createdAt: Sample.now))
        try stores.tokens.insert(stores.token("phone", grant: "grant-phone"))
        try stores.tokens.insert(stores.token("laptop", grant: "grant-laptop"))
        try stores.tokens.insert(stores.token("other-app", grant: "grant-other-app"))
        let revocation = SessionRevocation(store: store)

        #expect(try revocation.revokeSession(sessionID: "sid-phone", at: Sample.now + 1, reason: "lost phone") == 1)
        #expect(try stores.sessions.find(sessionID: "sid-phone")?.endedAt == Sample.now + 1)
        #expect(try stores.grants.find(grantID: "grant-phone")?.revokeReason == "lost phone")
        #expect(try stores.tokens.find(tokenHash: "phone")?.revokedAt == Sample.now + 1)
        #expect(try stores.sessions.find(sessionID: "sid-laptop")?.endedAt == nil)
        #expect(try stores.tokens.find(tokenHash: "laptop")?.revokedAt == nil)
        #expect(throws: StorageError.notFound("session nope")) { try revocation.revokeSession(sessionID: "nope", at: Sample.now, reason: "x") }

        #expect(try revocation.revokeGrants(userID: stores.user.userID, clientID: otherClient.clientID, at: Sample.now + 2, reason: "app") == 1)
        #expect(try stores.tokens.find(tokenHash: "other-app")?.revokedAt == Sample.now + 2)
        #expect(try stores.tokens.find(tokenHash: "laptop")?.revokedAt == nil)
        #expect(try stores.sessions.find(sessionID: "sid-laptop")?.endedAt == nil)

        let all = try revocation.revokeAllSessions(userID: stores.user.userID, at: Sample.now + 3, reason: "all")
        #expect(all.sessions == 1 && all.grants == 1)
        #expect(try stores.tokens.find(tokenHash: "laptop")?.revokedAt == Sample.now + 3)
        #expect(try stores.grants.find(grantID: "grant-phone")?.revokedAt == Sample.now + 1)
    }
}
