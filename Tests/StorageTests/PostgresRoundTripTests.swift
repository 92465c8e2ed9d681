import Foundation
import Model
import OIDC
import Storage
import Testing
import TestSupport

/// Hot paths on PostgreSQL in as few round trips as the store allows (issue #16 "Performance"):
/// each `PQexecParams` or script is one, counted by the pool.
@Suite(.enabled(if: !PostgresCluster.isSkipped, "IDP_TEST_SKIP_POSTGRES=1"))
struct PostgresRoundTripTests {
    @Test func aRefreshRotationIsOneShortTransaction() throws {
        let stores = try RefreshStores(.postgresql)
        try stores.family("grant-1", session: "sid-1")
        try stores.tokens.insert(stores.token("rt-0"))
        let database = try #require(stores.postgres).database
        let before = database.roundTrips
        guard case .rotated = try stores.tokens.rotate(tokenHash: "rt-0", successor: stores.token("rt-1"),
                                                       judge: RefreshReuseRule(window: 10), at: Sample.now + 1) else {
            Issue.record("no rotation")
            return
        }
        // BEGIN, the conditional UPDATE, reading the presented token, inserting the successor, COMMIT.
        #expect(database.roundTrips - before == 5)
    }

    /// What a refresh of a one-row family costs the stores, in the order `refreshTokenGrant` asks.
    @Test func aOneRowFamilyRefreshIsThreeLookupsAndOneStatement() throws {
        let stores = try RefreshStores(.postgresql)
        let postgres = try #require(stores.postgres)
        try stores.family("grant-1", session: "sid-1")
        try stores.tokens.insert(RefreshFamilyStoreTests.first(stores))
        let database = postgres.database
        _ = try stores.clients.find(clientID: stores.client.clientID)  // loads the client cache

        var before = database.roundTrips
        #expect(try stores.clients.find(clientID: stores.client.clientID) != nil)
        // A cached client costs the change counter only.
        #expect(database.roundTrips - before == 1)

        before = database.roundTrips
        let family = try #require(try SQLiteRefreshTokenFamilyReader(store: postgres).family(.family(grantID: "grant-1", generation: 0), includingSession: true))
        #expect(family.grant != nil && family.user != nil && family.session != nil)
        // The family row with its grant, the user and the session; no BEGIN/COMMIT around them.
        #expect(database.roundTrips - before == 3)

        before = database.roundTrips
        guard case .rotated(_, let successor) = try RefreshFamilyStoreTests.rotate(stores, 0, at: Sample.now + 1) else {
            Issue.record("no rotation")
            return
        }
        #expect(successor.generation == 1)
        // The conditional UPDATE … RETURNING alone: no BEGIN, no COMMIT, no read after it.
        #expect(database.roundTrips - before == 1)

        before = database.roundTrips
        guard case .retried = try RefreshFamilyStoreTests.rotate(stores, 0, at: Sample.now + 2) else {
            Issue.record("no retry inside the overlap window")
            return
        }
        // A retry inside the window: the UPDATE matches nothing; BEGIN, one read of the row, COMMIT.
        #expect(database.roundTrips - before == 4)
    }

    /// What `client_credentials` and `/userinfo` cost the stores besides the cached client (1), and
    /// a machine grant's revocation.
    @Test func clientCredentialsAndUserinfoAreOneStatementPerLookup() throws {
        let stores = try StoreBackend.postgresql.make()
        let postgres = try #require(stores.keepAlive.first as? PostgresStore)
        let apis = SQLiteAPIStore(store: postgres)
        let client = Sample.client()
        let user = Sample.user()
        try stores.clients.create(client)
        try stores.users.create(user)
        try apis.create(API(apiID: "api-1", identifier: "https://api.example.com/", name: "Orders", scopes: ["read"], createdAt: Sample.now))
        try apis.grant(ClientGrant(clientID: client.clientID, apiID: "api-1", scopes: ["read"], createdAt: Sample.now))
        let database = postgres.database

        var before = database.roundTrips
        let api = try #require(try apis.find(identifier: "https://api.example.com/"))
        #expect(try apis.clientGrant(clientID: client.clientID, apiID: api.apiID) != nil)
        // The API and the client grant, one statement each; the machine grant is not stored.
        #expect(database.roundTrips - before == 2)
        before = database.roundTrips
        #expect(try stores.grants.revokeMachineGrant(grantID: "m2m-1", until: Sample.now + 900))
        #expect(try stores.grants.isMachineGrantRevoked(grantID: "m2m-1"))
        // Its revocation and the check of it: one statement each.
        #expect(database.roundTrips - before == 2)

        try stores.grants.create(Grant(grantID: "g-1", clientID: client.clientID, userID: user.userID, sessionID: nil, scope: "openid",
                                       authTime: Sample.now, createdAt: Sample.now))
        before = database.roundTrips
        let holder = try SQLiteGrantHolderReader(store: postgres).grantAndUser(grantID: "g-1", userID: user.userID)
        #expect(holder.grant != nil && holder.user != nil)
        // The grant and the user.
        #expect(database.roundTrips - before == 2)
    }

    @Test func aCodeRedemptionIsOneShortTransaction() throws {
        let stores = try StoreBackend.postgresql.make()
        let client = Sample.client()
        let user = Sample.user()
        try stores.clients.create(client)
        try stores.users.create(user)
        try stores.codes.insert(Sample.code(client: client, user: user))
        let database = try #require(stores.keepAlive.first as? PostgresStore).database
        let before = database.roundTrips
        guard case .redeemed = try stores.codes.redeem(codeHash: "code-hash-1", at: Sample.now) else {
            Issue.record("not redeemed")
            return
        }
        // BEGIN, UPDATE … WHERE used_at IS NULL, SELECT, COMMIT.
        #expect(database.roundTrips - before == 4)
    }
}
