import Foundation
import Model
import Storage
import Testing
import TestSupport

/// The stores ported onto `SQLStorage` in #16 part 2, each run on SQLite and PostgreSQL: the
/// statements whose SQL had to change (upserts, JSON edits, prefix lookups, scalar min/max,
/// unread parameters, derived tables) and the single-winner guarantees, on both backends.
@Suite struct PortedStoresBackendTests {
    static let key = [UInt8](repeating: 7, count: 32)
    typealias Key = PortedStoresBackendTests

  /// A fresh database of one backend with an application and a user.
  struct Fixture {
    static let key = Key.key
    let storage: any GatehouseStorage
    let directory: TemporaryDirectory
    let client = Sample.client()
    let user = Sample.user()

    init(_ backend: TestBackend) throws {
        (storage, directory) = try makeTestStorage(backend)
        try SQLiteClientStore(store: storage).create(client)
        try SQLiteUserStore(store: storage).create(user)
    }

    func grant(_ id: String, session: String? = nil) throws -> Grant {
        var grant = Sample.grant(id, client: client, user: user)
        grant.sessionID = session
        try SQLiteGrantStore(store: storage).create(grant)
        return grant
    }

    func refreshToken(_ hash: String, grant: String) throws {
        try SQLiteRefreshTokenStore(store: storage).insert(
            RefreshToken(tokenHash: hash, grantID: grant, clientID: client.clientID, userID: user.userID, scope: "openid offline_access",
                         issuedAt: Sample.now, expiresAt: Sample.now + 86_400))
    }
  }

    @Test(arguments: TestBackend.available) func oneTimeCodesCountTriesAndAreConsumedOnce(_ backend: TestBackend) throws {
        let f = try Fixture(backend)
        let codes = SQLiteOneTimeCodeStore(store: f.storage)
        let code = OneTimeCode(purpose: .resetPassword, emailKey: "alice@example.com", codeHash: "right", linkHash: "link-1", clientID: nil,
                               attempts: 0, createdAt: Sample.now, expiresAt: Sample.now + 600)
        try codes.issue(code)
        try codes.issue(code)  // reissuing replaces (the upsert)
        #expect(try codes.attempt(.resetPassword, emailKey: "alice@example.com", codeHash: "wrong", maxAttempts: 3, at: Sample.now) == .wrong(remaining: 2))
        #expect(try codes.find(.resetPassword, emailKey: "alice@example.com", at: Sample.now)?.attempts == 1)
        #expect(try codes.findLink(linkHash: "link-1", at: Sample.now)?.emailKey == "alice@example.com")
        guard case .accepted = try codes.attempt(.resetPassword, emailKey: "alice@example.com", codeHash: "right", maxAttempts: 3, at: Sample.now) else {
            Issue.record("not accepted"); return
        }
        #expect(try codes.attempt(.resetPassword, emailKey: "alice@example.com", codeHash: "right", maxAttempts: 3, at: Sample.now) == .none)
        try codes.issue(code)
        // Twenty concurrent redemptions of one link: exactly one gets the code.
        let winners = Collected<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 20) { index in
            if (try? codes.redeemLink(linkHash: "link-1", at: Sample.now)) != nil { winners.withLock { $0.append(index) } }
        }
        #expect(winners.withLock { $0.count } == 1)
    }

    @Test(arguments: TestBackend.available) func aPasswordChangeKeepsItsHistoryAndVerifiesTheAddress(_ backend: TestBackend) throws {
        let f = try Fixture(backend)
        let accounts = SQLiteAccountStore(store: f.storage)
        var user = f.user
        user.emailVerified = false
        try SQLiteUserStore(store: f.storage).update(user)
        for (index, hash) in ["h1", "h2", "h3", "h4"].enumerated() {
            try accounts.changePassword(PasswordChange(userID: user.userID, newHash: hash, time: Sample.now + Double(index + 1),
                                                       verifiesEmail: index == 3, revokesAccess: index == 3, historySize: 2))
        }
        // The two hashes replaced last, newest first (the original and h1 fell out).
        #expect(try accounts.recent(userID: user.userID, limit: 5) == ["h3", "h2"])
        let stored = try #require(try SQLiteUserStore(store: f.storage).find(userID: user.userID))
        #expect(stored.passwordHash == "h4" && stored.emailVerified)
        try accounts.markEmailVerified(userID: user.userID, at: Sample.now)
        #expect(throws: StorageError.self) { try accounts.markEmailVerified(userID: "auth0|nobody", at: Sample.now) }
    }

    @Test(arguments: TestBackend.available) func sessionTransfersAreRedeemedByOneOfTwentyAndNeedALiveParent(_ backend: TestBackend) throws {
        let f = try Fixture(backend)
        _ = try f.grant("parent")
        let transfers = SQLiteSessionTransferStore(store: f.storage)
        try transfers.insert(SessionTransferToken(tokenHash: "stt", userID: f.user.userID, clientID: f.client.clientID, grantID: "parent",
                                                  ip: nil, issuedAt: Sample.now, expiresAt: Sample.now + 60))
        let winners = Collected<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 20) { index in
            if case .redeemed = try? transfers.redeem(tokenHash: "stt", at: Sample.now + 1) { winners.withLock { $0.append(index) } }
        }
        #expect(winners.withLock { $0.count } == 1)
        var session = Sample.session("sid-transferred", user: f.user, cookieHash: "cookie-t")
        session.parentGrantID = "parent"
        #expect(try transfers.startSession(session))
        try SQLiteGrantStore(store: f.storage).revoke(grantID: "parent", at: Sample.now + 2, reason: "test")
        // The grants trigger (a plpgsql function on PostgreSQL) ended the transferred session.
        #expect(try SQLiteSessionStore(store: f.storage).find(sessionID: "sid-transferred")?.endedAt != nil)
        session.sessionID = "sid-late"
        session.cookieHash = "cookie-late"
        #expect(try !transfers.startSession(session))
    }

    @Test(arguments: TestBackend.available) func readersSeeATokenItsGrantUserAndSession(_ backend: TestBackend) throws {
        let f = try Fixture(backend)
        try SQLiteSessionStore(store: f.storage).create(Sample.session("sid-1", user: f.user))
        _ = try f.grant("g1", session: "sid-1")
        try f.refreshToken("rt-1", grant: "g1")
        let family = try #require(try SQLiteRefreshTokenFamilyReader(store: f.storage).family(tokenHash: "rt-1"))
        #expect(family.grant?.grantID == "g1" && family.user?.userID == f.user.userID && family.session?.sessionID == "sid-1")
        let holder = try SQLiteGrantHolderReader(store: f.storage).grantAndUser(grantID: "g1", userID: f.user.userID)
        #expect(holder.grant != nil && holder.user != nil)
        let lookup = SQLiteLifecycleLookup(store: f.storage)
        #expect(try lookup.liveGrants(sessionID: "sid-1").map(\.grantID) == ["g1"])
    }

    @Test(arguments: TestBackend.available) func upstreamTokensAndRevocationsRoundTripSealed(_ backend: TestBackend) throws {
        let f = try Fixture(backend)
        try SQLiteConnectionStore(store: f.storage, key: Self.key).create(ConnectionStoreTests.connection("apple", strategy: .apple))
        try SQLiteIdentityStore(store: f.storage).link(Identity(connection: "apple", subject: "sub-1", userID: f.user.userID, createdAt: Sample.now))
        let tokens = SQLiteUpstreamTokenStore(store: f.storage, key: Self.key)
        try tokens.setRefreshToken(UpstreamRefreshToken(token: "apple-rt", clientID: "com.example.app"), connection: "apple", subject: "sub-1",
                                   at: Sample.now)
        #expect(try tokens.refreshToken(connection: "apple", subject: "sub-1") == UpstreamRefreshToken(token: "apple-rt", clientID: "com.example.app"))
        try tokens.setEmailForwarding(false, connection: "apple", subject: "sub-1", at: Sample.now)
        #expect(try tokens.emailForwarding(connection: "apple", subject: "sub-1") == false)

        let queue = SQLiteUpstreamRevocationQueue(store: f.storage, key: Self.key)
        try queue.enqueue(UpstreamRefreshToken(token: "old-rt", clientID: "com.example.app"), connection: "apple", at: Sample.now)
        let claimed = try queue.claimDue(at: Sample.now, limit: 10, lease: 60)
        #expect(claimed.map(\.token) == ["old-rt"])
        #expect(try queue.claimDue(at: Sample.now, limit: 10, lease: 60).isEmpty)
        try queue.markDone(try #require(claimed.first?.id), at: Sample.now)
        #expect(try SQLiteUpstreamRevocationQueue.pending(in: f.storage) == 0)
        #expect(try SQLiteUpstreamRevocationQueue.list(in: f.storage, limit: 5).first?.status == .done)

        // Deleting the account queues the stored Apple token and pseudonymizes the audit trail.
        try AuditStore(store: f.storage).append(AuditEvent(time: Sample.now, event: "login", userID: f.user.userID, actor: "user",
                                                           details: ["email": "alice@example.com", "ip_country": "NL"]))
        _ = try f.grant("g-del")
        try f.refreshToken("rt-del", grant: "g-del")
        let deleter = SQLiteAccountDeletion(store: f.storage, tokenKey: Self.key, pseudonymKey: Self.key)
        let deleted = try deleter.deleteAccount(userID: f.user.userID, at: Sample.now)
        #expect(deleted.revocationsQueued == 1 && deleted.identities == 1 && deleted.grants == 1)
        let events = try AuditStore(store: f.storage).tail(limit: 5, userID: deleted.pseudonym)
        #expect(events.count == 1 && events.first?.details == ["ip_country": "NL"])
        #expect(try SQLiteRefreshTokenStore(store: f.storage).belongedToDeletedUser(tokenHash: "rt-del"))
        #expect(try SQLiteUpstreamRevocationQueue.pending(in: f.storage) == 1)
    }

    @Test(arguments: TestBackend.available) func throttlePrefixesFindAndClearOnlyTheirKeys(_ backend: TestBackend) throws {
        let f = try Fixture(backend)
        try f.storage.records.sql.write { connection in
            for key in ["pair:alice@example.com|192.0.2.1", "pair:alice@example.com|192.0.2.2", "pair:alicex@example.com|192.0.2.1", "ip:192.0.2.1"] {
                _ = try connection.run("INSERT INTO login_throttle (key, failures, window_started_at, last_failure_at) VALUES (?, 1, 0, 0)", [.text(key)])
            }
        }
        let throttle = SQLiteLoginThrottleStore(store: f.storage)
        #expect(try throttle.states(withPrefixes: ["pair:alice@example.com|"]).map(\.key) == ["pair:alice@example.com|192.0.2.1", "pair:alice@example.com|192.0.2.2"])
        #expect(try throttle.clear(withPrefixes: ["pair:alice@example.com|"]) == 2)
        #expect(try throttle.states(withPrefixes: ["pair:", "ip:"]).count == 2)
    }

    @Test(arguments: TestBackend.available) func statsAndReclaimAnswerOnEitherBackend(_ backend: TestBackend) throws {
        let f = try Fixture(backend)
        let stats = try DatabaseStats.collect(f.storage, policy: RetentionPolicy(), at: Sample.now)
        #expect(stats.tables.contains { $0.name == "users" && $0.rows == 1 })
        #expect(stats.databaseBytes > 0)
        let reclaim = try SpaceReclaimer(store: f.storage).reclaim()
        #expect(reclaim.serverManaged == (backend == .postgresql))
        if backend == .postgresql {
            #expect(stats.autoVacuum == "autovacuum")
            try DatabaseStats.vacuumServer(f.storage)
        }
        try f.storage.ping()
        try f.storage.checkWrites()
    }
}
