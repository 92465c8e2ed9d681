import Foundation
import Model
import SQLite
import Storage
import Testing
import TestSupport

/// `SignInStore.completeLogin`: a successful login's four changes commit together or not at all.
@Suite("Sign-in store")
struct SignInStoreTests {
    static let throttleKey = "pair:alice|198.51.100.7"

    /// A user, a pending login transaction and a failure counted for the pair.
    private func seeded(_ backend: StoreBackend) throws -> (StoreSet, User, LoginTransaction) {
        let stores = try backend.make()
        let client = Sample.client()
        let user = Sample.user()
        try stores.clients.create(client)
        try stores.users.create(user)
        let transaction = LoginTransaction(idHash: "tx-hash", clientID: client.clientID, parameters: ["client_id": client.clientID],
                                           csrfHash: "csrf", createdAt: Sample.now, expiresAt: Sample.now + 900)
        try stores.transactions.create(transaction)
        _ = try stores.throttle.update(key: Self.throttleKey) { _ in
            ThrottleState(key: Self.throttleKey, failures: 3, windowStartedAt: Sample.now, lastFailureAt: Sample.now)
        }
        return (stores, user, transaction)
    }

    private func completion(_ user: User, transaction: String = "tx-hash") -> LoginCompletion {
        LoginCompletion(userID: user.userID, time: Sample.now + 10, rehashedPassword: "$scrypt$new", clearedThrottleKeys: [Self.throttleKey],
                        session: Sample.session("sid-new", user: user, cookieHash: "cookie-new"), transactionIDHash: transaction)
    }

    @Test(arguments: StoreBackend.allCases)
    func aLoginCommitsEverything(_ backend: StoreBackend) throws {
        let (stores, user, _) = try seeded(backend)
        try stores.signIns.completeLogin(completion(user))
        let after = try #require(try stores.users.find(userID: user.userID))
        #expect(after.loginsCount == 1 && after.lastLoginAt == Sample.now + 10 && after.passwordHash == "$scrypt$new")
        #expect(try stores.throttle.state(key: Self.throttleKey) == nil)
        #expect(try stores.sessions.find(sessionID: "sid-new")?.cookieHash == "cookie-new")
        #expect(try stores.transactions.find(idHash: "tx-hash", at: Sample.now)?.sessionID == "sid-new")
    }

    /// The password grants commit without a session or transaction.
    @Test(arguments: StoreBackend.allCases)
    func aLoginWithoutASessionCountsAndClears(_ backend: StoreBackend) throws {
        let (stores, user, _) = try seeded(backend)
        try stores.signIns.completeLogin(LoginCompletion(userID: user.userID, time: Sample.now + 10, clearedThrottleKeys: [Self.throttleKey]))
        #expect(try stores.users.find(userID: user.userID)?.loginsCount == 1)
        #expect(try stores.users.find(userID: user.userID)?.passwordHash == user.passwordHash)
        #expect(try stores.throttle.state(key: Self.throttleKey) == nil)
        #expect(try stores.sessions.list(userID: user.userID).isEmpty)
    }

    /// A transaction gone before the commit (completed in another tab, purged): nothing changes.
    @Test(arguments: StoreBackend.allCases)
    func aMissingTransactionChangesNothing(_ backend: StoreBackend) throws {
        let (stores, user, _) = try seeded(backend)
        #expect(throws: StorageError.self) { try stores.signIns.completeLogin(completion(user, transaction: "gone")) }
        try expectUntouched(stores, user)
    }

    /// An unknown user (deleted meanwhile): nothing changes.
    @Test(arguments: StoreBackend.allCases)
    func aMissingUserChangesNothing(_ backend: StoreBackend) throws {
        let (stores, user, _) = try seeded(backend)
        var other = completion(user)
        other.userID = "auth0|gone"
        #expect(throws: StorageError.self) { try stores.signIns.completeLogin(other) }
        try expectUntouched(stores, user)
    }

    /// A crash between the steps: SQLite fails the last statement (the attachment) after the user,
    /// throttle and session writes ran; the transaction rolls them back.
    @Test func aFailureAtTheLastStepRollsBackTheOthers() throws {
        let (store, directory) = try makeTestStore()
        defer { withExtendedLifetime(directory) {} }
        let stores = StoreSet(clients: SQLiteClientStore(store: store), users: SQLiteUserStore(store: store),
                              codes: SQLiteAuthorizationCodeStore(store: store), sessions: SQLiteSessionStore(store: store),
                              grants: SQLiteGrantStore(store: store), transactions: SQLiteLoginTransactionStore(store: store),
                              throttle: SQLiteLoginThrottleStore(store: store), signIns: SQLiteSignInStore(store: store),
                              refreshTokens: SQLiteRefreshTokens(database: store.database), keepAlive: [store, directory])
        let client = Sample.client()
        let user = Sample.user()
        try stores.clients.create(client)
        try stores.users.create(user)
        try stores.transactions.create(LoginTransaction(idHash: "tx-hash", clientID: client.clientID, parameters: [:], csrfHash: "csrf",
                                                        createdAt: Sample.now, expiresAt: Sample.now + 900))
        _ = try stores.throttle.update(key: Self.throttleKey) { _ in
            ThrottleState(key: Self.throttleKey, failures: 3, windowStartedAt: Sample.now, lastFailureAt: Sample.now)
        }
        try store.database.write { connection in
            _ = try connection.run("""
                CREATE TEMP TRIGGER fail_attach BEFORE UPDATE OF session_id ON main.login_transactions
                BEGIN SELECT RAISE(ABORT, 'injected failure at the last step of a login'); END
                """)
        }
        #expect(throws: StorageError.self) { try stores.signIns.completeLogin(completion(user)) }
        try expectUntouched(stores, user)
    }

    private func expectUntouched(_ stores: StoreSet, _ user: User, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let after = try #require(try stores.users.find(userID: user.userID), sourceLocation: sourceLocation)
        #expect(after.loginsCount == 0 && after.lastLoginAt == nil && after.passwordHash == user.passwordHash, sourceLocation: sourceLocation)
        #expect(try stores.throttle.state(key: Self.throttleKey)?.failures == 3, sourceLocation: sourceLocation)
        #expect(try stores.sessions.find(sessionID: "sid-new") == nil, sourceLocation: sourceLocation)
        #expect(try stores.transactions.find(idHash: "tx-hash", at: Sample.now)?.sessionID == nil, sourceLocation: sourceLocation)
    }
}
