import Foundation
import Model
import SQLite
import Storage
import Testing
import TestSupport

/// The reads that run on every token request: the cached client lookup and the one-transaction
/// family and grant-holder reads.
@Suite("Hot-path reads")
struct HotPathReadTests {
    /// Two `Store`s on one file stand in for idp and idp-admin: a change made through one is seen
    /// by the other's very next lookup, though the other answers from its cache meanwhile.
    @Test func aCachedClientFollowsChangesMadeByAnotherProcess() throws {
        let (daemon, directory) = try makeTestStore()
        let admin = try Store(path: directory.file("idp.sqlite3"))
        defer { admin.close() }
        let cached = SQLiteClientStore(store: daemon)
        let changer = SQLiteClientStore(store: admin)
        var client = Sample.client()
        try changer.create(client)
        #expect(try cached.find(clientID: client.clientID) == client)
        #expect(try cached.find(clientID: client.clientID) == client)

        client.name = "Renamed"
        try changer.update(client)
        #expect(try cached.find(clientID: client.clientID)?.name == "Renamed")

        // An allow-list change alone (its own table) invalidates too.
        client.callbacks = ["https://example.com/new"]
        try changer.update(client)
        #expect(try cached.find(clientID: client.clientID)?.callbacks == ["https://example.com/new"])

        // Even a change made behind the stores' backs, in plain SQL.
        try admin.database.write { try $0.run("DELETE FROM client_allowed_urls WHERE client_id = ?", [.text(client.clientID)]) }
        #expect(try cached.find(clientID: client.clientID)?.callbacks == [])

        try changer.delete(clientID: client.clientID)
        #expect(try cached.find(clientID: client.clientID) == nil)
        withExtendedLifetime(directory) {}
    }

    @Test func theChangeCounterMovesOnEveryClientTableChange() throws {
        let (store, directory) = try makeTestStore()
        let clients = SQLiteClientStore(store: store)
        func counter() throws -> Int64 {
            try store.database.read { try $0.queryOne("SELECT value FROM change_counters WHERE name = 'clients'")!.get(0) }
        }
        let start = try counter()
        var client = Sample.client()
        try clients.create(client)
        let afterCreate = try counter()
        #expect(afterCreate > start)
        client.webOrigins = []
        try clients.update(client)
        #expect(try counter() > afterCreate)
        withExtendedLifetime(directory) {}
    }

    @Test func aRefreshFamilyIsReadWhole() throws {
        let stores = try RefreshStores(.sqlite)
        let store = try #require(stores.store)
        try stores.family("grant-1", session: "sid-1")
        try stores.family("grant-2", session: nil)
        try stores.tokens.insert(stores.token("rt-1", grant: "grant-1"))
        try stores.tokens.insert(stores.token("rt-2", grant: "grant-2"))
        let reader = SQLiteRefreshTokenFamilyReader(store: store)

        let family = try #require(try reader.family(tokenHash: "rt-1"))
        #expect(family.token == (try stores.tokens.find(tokenHash: "rt-1")))
        #expect(family.grant?.grantID == "grant-1")
        #expect(family.user?.userID == stores.user.userID)
        #expect(family.session?.sessionID == "sid-1")

        let sessionless = try #require(try reader.family(tokenHash: "rt-2"))
        #expect(sessionless.grant?.grantID == "grant-2" && sessionless.session == nil)
        #expect(try reader.family(tokenHash: "unknown") == nil)
    }

    @Test func aGrantAndItsUserAreReadTogether() throws {
        let stores = try RefreshStores(.sqlite)
        let store = try #require(stores.store)
        try stores.family("grant-1", session: nil)
        let reader = SQLiteGrantHolderReader(store: store)
        let both = try reader.grantAndUser(grantID: "grant-1", userID: stores.user.userID)
        #expect(both.grant?.grantID == "grant-1" && both.user?.userID == stores.user.userID)
        let neither = try reader.grantAndUser(grantID: "nope", userID: "nobody")
        #expect(neither.grant == nil && neither.user == nil)
    }
}
