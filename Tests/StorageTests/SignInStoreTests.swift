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

    static let transaction = LoginTransaction(idHash: "tx-hash", clientID: Sample.client().clientID,
                                              parameters: ["client_id": Sample.client().clientID], csrfHash: "csrf",
                                              createdAt: Sample.now, expiresAt: Sample.now + 900)

    /// A user and a failure counted for the pair; the transaction lives only in its cookie so far.
    private func seeded(_ backend: StoreBackend) throws -> (StoreSet, User, LoginTransaction) {
        let stores = try backend.make()
        let client = Sample.client()
        let user = Sample.user()
        try stores.clients.create(client)
        try stores.users.create(user)
        let transaction = Self.transaction
        _ = try stores.throttle.update(key: Self.throttleKey) { _ in
            ThrottleState(key: Self.throttleKey, failures: 3, windowStartedAt: Sample.now, lastFailureAt: Sample.now)
        }
        return (stores, user, transaction)
    }

    private func completion(_ user: User) -> LoginCompletion {
        LoginCompletion(userID: user.userID, time: Sample.now + 10, rehashedPassword: "$scrypt$new", clearedThrottleKeys: [Self.throttleKey],
                        session: Sample.session("sid-new", user: user, cookieHash: "cookie-new"), transaction: Self.transaction)
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

    /// A transaction completed before (another tab, a second post): `.alreadyExists`, nothing changes.
    @Test(arguments: StoreBackend.allCases)
    func aCompletedTransactionChangesNothing(_ backend: StoreBackend) throws {
        let (stores, user, transaction) = try seeded(backend)
        var earlier = transaction
        earlier.sessionID = "sid-earlier"
        try stores.transactions.create(earlier)
        do {
            try stores.signIns.completeLogin(completion(user))
            Issue.record("a completed transaction completed again")
        } catch {
            guard case .alreadyExists = error else { Issue.record("expected alreadyExists, got \(error)"); return }
        }
        try expectUntouched(stores, user, transactionSession: "sid-earlier")
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

    /// A crash between the steps: SQLite fails the last statement (the transaction's insert) after the user,
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
        _ = try stores.throttle.update(key: Self.throttleKey) { _ in
            ThrottleState(key: Self.throttleKey, failures: 3, windowStartedAt: Sample.now, lastFailureAt: Sample.now)
        }
        try store.database.write { connection in
            _ = try connection.run("""
                CREATE TEMP TRIGGER fail_attach BEFORE INSERT ON main.login_transactions
                BEGIN SELECT RAISE(ABORT, 'injected failure at the last step of a login'); END
                """)
        }
        #expect(throws: StorageError.self) { try stores.signIns.completeLogin(completion(user)) }
        try expectUntouched(stores, user)
    }

    private func expectUntouched(_ stores: StoreSet, _ user: User, transactionSession: String? = nil,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        let after = try #require(try stores.users.find(userID: user.userID), sourceLocation: sourceLocation)
        #expect(after.loginsCount == 0 && after.lastLoginAt == nil && after.passwordHash == user.passwordHash, sourceLocation: sourceLocation)
        #expect(try stores.throttle.state(key: Self.throttleKey)?.failures == 3, sourceLocation: sourceLocation)
        #expect(try stores.sessions.find(sessionID: "sid-new") == nil, sourceLocation: sourceLocation)
        #expect(try stores.transactions.find(idHash: "tx-hash", at: Sample.now)?.sessionID == transactionSession, sourceLocation: sourceLocation)
    }
}
