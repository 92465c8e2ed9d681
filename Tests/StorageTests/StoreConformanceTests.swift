import Foundation
import Model
import Testing
import TestSupport

/// Every behaviour of the store protocols, run against SQLite and the in-memory stores alike.
@Suite struct StoreConformanceTests {
    // MARK: Clients

    @Test(arguments: StoreBackend.allCases)
    func clientRoundTripsEveryFieldAndListOrder(backend: StoreBackend) throws {
        let stores = try backend.make()
        var client = Sample.client()
        client.secretHash = nil
        client.refreshReuseInterval = 0
        client.introspectionEnabled = true
        try stores.clients.create(client)
        #expect(try stores.clients.find(clientID: client.clientID) == client)
        #expect(try stores.clients.find(clientID: "nope") == nil)

        var confidential = Sample.client("client-2", type: .regular)
        confidential.secretHash = "$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA"
        confidential.callbacks = []
        confidential.webOrigins = []
        confidential.androidSHA256 = []
        confidential.appleTeamID = "ABCDE12345"
        confidential.idTokenAlgorithm = "ES256"
        try stores.clients.create(confidential)
        #expect(try stores.clients.find(clientID: "client-2") == confidential)
        #expect(try stores.clients.find(clientID: "client-2")?.authMethods == [.clientSecretBasic, .clientSecretPost])
        #expect(try stores.clients.list().map(\.clientID) == ["client-1", "client-2"])
    }

    @Test(arguments: StoreBackend.allCases)
    func updateReplacesAllowListsInOrder(backend: StoreBackend) throws {
        let stores = try backend.make()
        var client = Sample.client()
        try stores.clients.create(client)
        client.name = "Renamed"
        client.callbacks = ["https://z.example/cb", "https://a.example/cb", "https://m.example/cb"]
        client.logoutURLs = []
        client.webOrigins = ["https://only.example"]
        client.grantTypes = [.refreshToken, .authorizationCode]
        client.updatedAt = Sample.now + 5
        try stores.clients.update(client)
        let found = try #require(try stores.clients.find(clientID: client.clientID))
        #expect(found == client)
        #expect(found.callbacks == ["https://z.example/cb", "https://a.example/cb", "https://m.example/cb"])
        #expect(found.logoutURLs.isEmpty)
        #expect(found.grantTypes == [.refreshToken, .authorizationCode])
    }

    @Test(arguments: StoreBackend.allCases)
    func duplicateClientIDIsAlreadyExistsAndUnknownIsNotFound(backend: StoreBackend) throws {
        let stores = try backend.make()
        try stores.clients.create(Sample.client())
        #expect(try alreadyExists { try stores.clients.create(Sample.client()) })
        // The failed insert left the original (and its lists) intact.
        #expect(try stores.clients.find(clientID: "client-1")?.callbacks == Sample.client().callbacks)
        #expect(try notFound { try stores.clients.update(Sample.client("ghost")) })
        #expect(try notFound { try stores.clients.delete(clientID: "ghost") })
    }

    @Test(arguments: StoreBackend.allCases)
    func deletingAClientCascadesToCodesGrantsTokensAndTransactions(backend: StoreBackend) throws {
        let stores = try backend.make()
        let client = Sample.client()
        let other = Sample.client("client-2")
        let user = Sample.user()
        try stores.clients.create(client)
        try stores.clients.create(other)
        try stores.users.create(user)
        try stores.codes.insert(Sample.code(client: client, user: user))
        try stores.codes.insert(Sample.code("other-code", client: other, user: user))
        let grant = Sample.grant(client: client, user: user)
        try stores.grants.create(grant)
        try stores.refreshTokens.add(hash: "rt-1", grant: grant)
        try stores.transactions.create(Sample.transaction(client: client))

        try stores.clients.delete(clientID: client.clientID)
        #expect(try stores.clients.find(clientID: client.clientID) == nil)
        #expect(try stores.codes.redeem(codeHash: "code-hash-1", at: Sample.now) == .unknown)
        #expect(try stores.grants.find(grantID: grant.grantID) == nil)
        #expect(try !stores.refreshTokens.exists(hash: "rt-1"))
        #expect(try stores.transactions.find(idHash: "tx-hash-1", at: Sample.now) == nil)
        // Another client's records and the user stay.
        #expect(try stores.clients.list().map(\.clientID) == ["client-2"])
        if case .redeemed = try stores.codes.redeem(codeHash: "other-code", at: Sample.now) {} else { Issue.record("other code gone") }
        #expect(try stores.users.find(userID: user.userID) == user)
        // Recreating the id starts clean: no stale allow-list rows.
        var again = Sample.client()
        again.callbacks = ["https://new.example/cb"]
        try stores.clients.create(again)
        #expect(try stores.clients.find(clientID: "client-1")?.callbacks == ["https://new.example/cb"])
    }

    // MARK: Users

    @Test(arguments: StoreBackend.allCases)
    func userRoundTripsAndEmailIsCaseInsensitive(backend: StoreBackend) throws {
        let stores = try backend.make()
        let user = Sample.user()
        try stores.users.create(user)
        #expect(try stores.users.find(userID: user.userID) == user)
        #expect(try stores.users.find(email: "alice@example.com") == user)
        #expect(try stores.users.find(email: "ALICE@EXAMPLE.COM") == user)
        #expect(try stores.users.find(email: "bob@example.com") == nil)
        #expect(try stores.users.find(userID: "auth0|nobody") == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func duplicateEmailInAnyCaseOrDuplicateIDIsAlreadyExists(backend: StoreBackend) throws {
        let stores = try backend.make()
        try stores.users.create(Sample.user())
        #expect(try alreadyExists { try stores.users.create(Sample.user("auth0|other", email: "alice@EXAMPLE.com")) })
        #expect(try alreadyExists { try stores.users.create(Sample.user(email: "someone@example.com")) })
        #expect(try stores.users.find(userID: "auth0|other") == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func userUpdateAndRecordLogin(backend: StoreBackend) throws {
        let stores = try backend.make()
        var user = Sample.user()
        try stores.users.create(user)
        user.email = "alice.new@example.com"
        user.blocked = true
        user.nickname = "al"
        user.updatedAt = Sample.now + 1
        try stores.users.update(user)
        #expect(try stores.users.find(email: "ALICE.NEW@example.com") == user)
        #expect(try stores.users.find(email: "alice@example.com") == nil)
        #expect(try notFound { try stores.users.update(Sample.user("auth0|ghost", email: "g@example.com")) })

        try stores.users.recordLogin(userID: user.userID, at: Sample.now + 10, rehashedPassword: nil)
        try stores.users.recordLogin(userID: user.userID, at: Sample.now + 20, rehashedPassword: "$scrypt$new")
        let found = try #require(try stores.users.find(userID: user.userID))
        #expect(found.loginsCount == 2)
        #expect(found.lastLoginAt == Sample.now + 20)
        #expect(found.passwordHash == "$scrypt$new")
        #expect(try notFound { try stores.users.recordLogin(userID: "auth0|ghost", at: Sample.now, rehashedPassword: nil) })
    }

    // MARK: Authorization codes

    @Test(arguments: StoreBackend.allCases)
    func redeemMarksUsedOnceThenReportsReplayAndUnknown(backend: StoreBackend) throws {
        let stores = try backend.make()
        let (client, user) = try seed(stores)
        let code = Sample.code(client: client, user: user)
        try stores.codes.insert(code)
        #expect(try alreadyExists { try stores.codes.insert(code) })

        var used = code
        used.usedAt = Sample.now + 3
        #expect(try stores.codes.redeem(codeHash: code.codeHash, at: Sample.now + 3) == .redeemed(used))
        #expect(try stores.codes.redeem(codeHash: code.codeHash, at: Sample.now + 4) == .replayed(used))
        #expect(try stores.codes.redeem(codeHash: "no-such-code", at: Sample.now) == .unknown)

        // Expiry is the caller's job: an expired code still redeems, with its expiresAt.
        var late = Sample.code("late", client: client, user: user)
        late.expiresAt = Sample.now - 1
        try stores.codes.insert(late)
        guard case .redeemed(let redeemed) = try stores.codes.redeem(codeHash: "late", at: Sample.now) else {
            Issue.record("expected redeemed"); return
        }
        #expect(redeemed.expiresAt == Sample.now - 1)

        try stores.codes.attachGrant(codeHash: code.codeHash, grantID: "grant-9")
        guard case .replayed(let replayed) = try stores.codes.redeem(codeHash: code.codeHash, at: Sample.now) else {
            Issue.record("expected replayed"); return
        }
        #expect(replayed.grantID == "grant-9")
        #expect(try notFound { try stores.codes.attachGrant(codeHash: "nope", grantID: "g") })
    }

    /// negative-tests C02: 50 threads racing to redeem one code; exactly one wins.
    @Test(arguments: StoreBackend.allCases)
    func fiftyConcurrentRedemptionsYieldExactlyOneRedeemed(backend: StoreBackend) throws {
        let stores = try backend.make()
        let (client, user) = try seed(stores)
        try stores.codes.insert(Sample.code(client: client, user: user))
        let outcomes = Outcomes()
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let codes = stores.codes
        for index in 0..<50 {
            group.enter()
            let thread = Thread {
                start.wait()
                do {
                    outcomes.append(try codes.redeem(codeHash: "code-hash-1", at: Sample.now + Double(index)))
                } catch {
                    outcomes.fail("\(error)")
                }
                group.leave()
            }
            thread.start()
        }
        for _ in 0..<50 { start.signal() }
        group.wait()
        let results = outcomes.values
        #expect(outcomes.failures.isEmpty, "\(outcomes.failures)")
        #expect(results.count == 50)
        let redeemed = results.filter { if case .redeemed = $0 { true } else { false } }
        let replayed = results.filter { if case .replayed = $0 { true } else { false } }
        #expect(redeemed.count == 1)
        #expect(replayed.count == 49)
        // Every replay sees the winner's time.
        guard case .redeemed(let winner) = redeemed.first else { return }
        #expect(replayed.allSatisfy { $0 == .replayed(winner) })
    }

    // MARK: Sessions

    @Test(arguments: StoreBackend.allCases)
    func sessionsRoundTripListNewestFirstAndEndIdempotently(backend: StoreBackend) throws {
        let stores = try backend.make()
        let (_, user) = try seed(stores)
        let first = Sample.session(user: user)
        let second = Sample.session("sid-2", user: user, cookieHash: "cookie-hash-2", createdAt: Sample.now + 60)
        try stores.sessions.create(first)
        try stores.sessions.create(second)
        #expect(try alreadyExists { try stores.sessions.create(first) })
        #expect(try stores.sessions.find(cookieHash: "cookie-hash-1") == first)
        #expect(try stores.sessions.find(sessionID: "sid-2") == second)
        #expect(try stores.sessions.find(cookieHash: "nope") == nil)
        #expect(try stores.sessions.list(userID: user.userID).map(\.sessionID) == ["sid-2", "sid-1"])
        #expect(try stores.sessions.list(userID: "auth0|nobody").isEmpty)

        try stores.sessions.end(sessionID: "sid-1", at: Sample.now + 200)
        try stores.sessions.end(sessionID: "sid-1", at: Sample.now + 300)
        let ended = try #require(try stores.sessions.find(sessionID: "sid-1"))
        #expect(ended.endedAt == Sample.now + 200)
        #expect(!ended.isLive(at: Sample.now + 201))
        #expect(try stores.sessions.find(sessionID: "sid-2")?.endedAt == nil)
        #expect(try notFound { try stores.sessions.end(sessionID: "ghost", at: Sample.now) })
    }

    // MARK: Grants

    @Test(arguments: StoreBackend.allCases)
    func revokeIsIdempotentAndRevokesTheGrantsRefreshTokens(backend: StoreBackend) throws {
        let stores = try backend.make()
        let (client, user) = try seed(stores)
        let grant = Sample.grant(client: client, user: user)
        let other = Sample.grant("grant-2", client: client, user: nil)
        try stores.grants.create(grant)
        try stores.grants.create(other)
        #expect(try alreadyExists { try stores.grants.create(grant) })
        #expect(try stores.grants.find(grantID: "grant-1") == grant)
        #expect(try stores.grants.find(grantID: "grant-2") == other)
        try stores.refreshTokens.add(hash: "rt-a", grant: grant)
        try stores.refreshTokens.add(hash: "rt-b", grant: grant)
        try stores.refreshTokens.add(hash: "rt-other", grant: other)

        try stores.grants.revoke(grantID: "grant-1", at: Sample.now + 10, reason: "code replayed")
        try stores.grants.revoke(grantID: "grant-1", at: Sample.now + 20, reason: "logout")
        let revoked = try #require(try stores.grants.find(grantID: "grant-1"))
        #expect(revoked.revokedAt == Sample.now + 10)
        #expect(revoked.revokeReason == "code replayed")
        #expect(try stores.refreshTokens.revokedAt(hash: "rt-a") == Sample.now + 10)
        #expect(try stores.refreshTokens.revokedAt(hash: "rt-b") == Sample.now + 10)
        #expect(try stores.refreshTokens.revokedAt(hash: "rt-other") == nil)
        #expect(try stores.grants.find(grantID: "grant-2")?.revokedAt == nil)
        #expect(try notFound { try stores.grants.revoke(grantID: "ghost", at: Sample.now, reason: "x") })
    }

    // MARK: Login transactions

    @Test(arguments: StoreBackend.allCases)
    func loginTransactionsExpireAndAreSingleUse(backend: StoreBackend) throws {
        let stores = try backend.make()
        let (client, _) = try seed(stores)
        var transaction = Sample.transaction(client: client)
        transaction.sessionID = "sid-1"  // stored by the login that completed it
        try stores.transactions.create(transaction)
        #expect(try alreadyExists { try stores.transactions.create(transaction) })
        #expect(try stores.transactions.find(idHash: "tx-hash-1", at: Sample.now) == transaction)
        #expect(try stores.transactions.find(idHash: "tx-hash-1", at: Sample.now + 599) == transaction)
        #expect(try stores.transactions.find(idHash: "tx-hash-1", at: Sample.now + 600) == nil)
        #expect(try stores.transactions.find(idHash: "nope", at: Sample.now) == nil)

        #expect(try stores.transactions.consume(idHash: "tx-hash-1"))
        #expect(try !stores.transactions.consume(idHash: "tx-hash-1"))
        // Kept without its session until it expires, so the same transaction cannot be stored again.
        #expect(try stores.transactions.find(idHash: "tx-hash-1", at: Sample.now)?.sessionID == nil)
        #expect(try alreadyExists { try stores.transactions.create(transaction) })
    }

    // MARK: Helpers

    private func seed(_ stores: StoreSet) throws -> (Client, User) {
        let client = Sample.client()
        let user = Sample.user()
        try stores.clients.create(client)
        try stores.users.create(user)
        return (client, user)
    }

    private func notFound(_ body: () throws -> Void) throws -> Bool {
        do {
            try body()
            return false
        } catch let error as StorageError {
            if case .notFound = error { return true }
            throw error
        }
    }

    private func alreadyExists(_ body: () throws -> Void) throws -> Bool {
        do {
            try body()
            return false
        } catch let error as StorageError {
            if case .alreadyExists = error { return true }
            throw error
        }
    }
}

/// Results gathered from many threads.
final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [CodeRedemption] = []
    private var errors: [String] = []

    func append(_ outcome: CodeRedemption) { lock.withLock { results.append(outcome) } }
    func fail(_ message: String) { lock.withLock { errors.append(message) } }
    var values: [CodeRedemption] { lock.withLock { results } }
    var failures: [String] { lock.withLock { errors } }
}
