import Crypto
import Foundation
import Model
import SQLite
import Storage
import Testing
import TestSupport

/// `APIStore` behaviours against SQLite and the in-memory store, plus the SQLite lifecycle lookups.
@Suite struct APIStoreTests {
    struct Stores {
        let apis: any APIStore
        let clients: any ClientStore
        let keepAlive: [AnyObject]
    }

    static func make(_ backend: StoreBackend) throws -> Stores {
        switch backend {
        case .sqlite:
            let (store, directory) = try makeTestStore()
            return Stores(apis: SQLiteAPIStore(store: store), clients: SQLiteClientStore(store: store), keepAlive: [store, directory])
        case .postgresql:
            let store = try makeTestPostgresStore()
            return Stores(apis: SQLiteAPIStore(store: store), clients: SQLiteClientStore(store: store), keepAlive: [store])
        case .memory:
            let database = MemoryDatabase()
            let apis = MemoryAPIStore(knownClients: ["client-1", "client-2"])
            return Stores(apis: apis, clients: MemoryClientStore(database: database), keepAlive: [database])
        }
    }

    static func api(_ id: String = "api-1", identifier: String = "https://api.example.com/", at offset: TimeInterval = 0) -> API {
        API(apiID: id, identifier: identifier, name: "Orders", scopes: ["read:orders", "write:orders"], tokenLifetime: 600,
            signingAlgorithm: "ES256", createdAt: Sample.now + offset)
    }

    @Test(arguments: StoreBackend.allCases)
    func apisRoundTripAndIdentifiersAreUnique(backend: StoreBackend) throws {
        let stores = try Self.make(backend)
        let api = Self.api()
        try stores.apis.create(api)
        #expect(try stores.apis.find(apiID: "api-1") == api)
        #expect(try stores.apis.find(identifier: "https://api.example.com/") == api)
        #expect(try stores.apis.find(identifier: "https://API.example.com/") == nil)
        #expect(throws: StorageError.self) { try stores.apis.create(Self.api("api-2")) }
        #expect(throws: StorageError.self) { try stores.apis.create(Self.api(identifier: "https://x.example/")) }
        try stores.apis.create(Self.api("api-0", identifier: "https://second.example/", at: 5))
        #expect(try stores.apis.list().map(\.apiID) == ["api-1", "api-0"])

        var updated = api
        updated.name = "Renamed"
        updated.scopes = []
        updated.tokenLifetime = 60
        updated.signingAlgorithm = "RS256"
        updated.updatedAt = Sample.now + 9
        try stores.apis.update(updated)
        #expect(try stores.apis.find(apiID: "api-1") == updated)
        #expect(throws: StorageError.notFound("api nope")) { try stores.apis.update(Self.api("nope", identifier: "https://n.example/")) }
    }

    @Test(arguments: StoreBackend.allCases)
    func clientGrantsUpsertAndGoWithTheirAPI(backend: StoreBackend) throws {
        let stores = try Self.make(backend)
        try stores.clients.create(Sample.client("client-1", type: .m2m))
        try stores.apis.create(Self.api())
        try stores.apis.create(Self.api("api-2", identifier: "https://two.example/", at: 1))
        try stores.apis.grant(ClientGrant(clientID: "client-1", apiID: "api-1", scopes: ["read:orders"], createdAt: Sample.now))
        try stores.apis.grant(ClientGrant(clientID: "client-1", apiID: "api-2", scopes: [], createdAt: Sample.now + 1))
        try stores.apis.grant(ClientGrant(clientID: "client-1", apiID: "api-1", scopes: ["write:orders", "read:orders"], createdAt: Sample.now + 7))
        let grant = try #require(try stores.apis.clientGrant(clientID: "client-1", apiID: "api-1"))
        #expect(grant.scopes == ["write:orders", "read:orders"])
        #expect(grant.createdAt == Sample.now)
        #expect(try stores.apis.clientGrants(clientID: "client-1").map(\.apiID) == ["api-1", "api-2"])
        #expect(try stores.apis.clientGrant(clientID: "client-2", apiID: "api-1") == nil)
        #expect(throws: StorageError.self) {
            try stores.apis.grant(ClientGrant(clientID: "client-1", apiID: "nope", scopes: [], createdAt: Sample.now))
        }
        try stores.apis.delete(apiID: "api-1")
        #expect(try stores.apis.clientGrants(clientID: "client-1").map(\.apiID) == ["api-2"])
        #expect(throws: StorageError.notFound("api api-1")) { try stores.apis.delete(apiID: "api-1") }
    }

    @Test func sqliteGrantsFollowTheirClientAndUnknownClientsAreRefused() throws {
        let (store, directory) = try makeTestStore()
        _ = directory
        let apis = SQLiteAPIStore(store: store)
        let clients = SQLiteClientStore(store: store)
        try clients.create(Sample.client("client-1", type: .m2m))
        try apis.create(Self.api())
        #expect(throws: StorageError.notFound("client ghost")) {
            try apis.grant(ClientGrant(clientID: "ghost", apiID: "api-1", scopes: [], createdAt: Sample.now))
        }
        try apis.grant(ClientGrant(clientID: "client-1", apiID: "api-1", scopes: [], createdAt: Sample.now))
        try clients.delete(clientID: "client-1")
        #expect(try apis.clientGrants(clientID: "client-1").isEmpty)
    }

    @Test func sqliteLookupFindsRefreshTokensByHashAndLiveGrantsBySession() throws {
        let (store, directory) = try makeTestStore()
        _ = directory
        let user = Sample.user()
        let client = Sample.client()
        try SQLiteClientStore(store: store).create(client)
        try SQLiteUserStore(store: store).create(user)
        let session = Sample.session(user: user)
        try SQLiteSessionStore(store: store).create(session)
        let grants = SQLiteGrantStore(store: store)
        var live = Sample.grant("g-live", client: client, user: user)
        live.sessionID = session.sessionID
        var revoked = Sample.grant("g-revoked", client: client, user: user)
        revoked.sessionID = session.sessionID
        try grants.create(live)
        try grants.create(revoked)
        try grants.create(Sample.grant("g-other", client: client, user: user))
        try grants.revoke(grantID: "g-revoked", at: Sample.now, reason: "test")
        try SQLiteRefreshTokens(database: store.database).add(hash: SecretDigest.hash("rt-1"), grant: live)

        let lookup = SQLiteLifecycleLookup(store: store)
        #expect(try lookup.liveGrants(sessionID: session.sessionID).map(\.grantID) == ["g-live"])
        let snapshot = try #require(try lookup.refreshToken(hash: SecretDigest.hash("rt-1")))
        #expect(snapshot.grantID == "g-live")
        #expect(snapshot.clientID == client.clientID)
        #expect(snapshot.userID == user.userID)
        #expect(snapshot.revokedAt == nil)
        #expect(try lookup.refreshToken(hash: SecretDigest.hash("rt-2")) == nil)
        try grants.revoke(grantID: "g-live", at: Sample.now + 3, reason: "test")
        #expect(try lookup.refreshToken(hash: SecretDigest.hash("rt-1"))?.revokedAt == Sample.now + 3)
    }
}
