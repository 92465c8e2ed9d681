import Foundation
import Model
import SQLite
import Storage
import Testing
import TestSupport

/// Upstream connections, the ones an application offers, identities, and emails unique per connection.
@Suite struct ConnectionStoreTests {
    static let key = [UInt8](repeating: 9, count: 32)

    struct Fixture {
        let store: any GatehouseStorage
        let directory: TemporaryDirectory
        let connections: SQLiteConnectionStore
        let identities: SQLiteIdentityStore
        let users: SQLiteUserStore
        let clients: SQLiteClientStore

        init(_ backend: TestBackend) throws {
            (store, directory) = try makeTestStorage(backend)
            connections = SQLiteConnectionStore(store: store, key: ConnectionStoreTests.key)
            identities = SQLiteIdentityStore(store: store)
            users = SQLiteUserStore(store: store)
            clients = SQLiteClientStore(store: store)
        }
    }

    static func connection(_ name: String = "corp", strategy: ConnectionStrategy = .oidc) -> UpstreamConnection {
        UpstreamConnection(name: name, strategy: strategy, clientID: "gatehouse-at-\(name)", clientSecret: "s3cret-value-\(name)",
                           privateKey: strategy == .apple ? "-----BEGIN PRIVATE KEY-----\nMIGTAgEAPRIVATEKEYBYTES\n-----END PRIVATE KEY-----\n" : nil,
                           teamID: strategy == .apple ? "TEAM123456" : nil, keyID: strategy == .apple ? "KEY1234567" : nil,
                           discoveryURL: "https://idp.example/.well-known/openid-configuration", tokenURL: "http://127.0.0.1:9/token",
                           issuer: "https://idp.example/", hostedDomain: nil, scopes: ["openid", "email"], nativeAudiences: ["com.example.app"],
                           linkByVerifiedEmail: true, createdAt: Sample.now)
    }

    @Test(arguments: TestBackend.available) func aConnectionRoundTripsEveryFieldWithItsSecretsSealedAtRest(_ backend: TestBackend) throws {
        let fixture = try Fixture(backend)
        defer { fixture.store.close() }
        let apple = Self.connection("apple", strategy: .apple)
        try fixture.connections.create(apple)
        try fixture.connections.create(Self.connection("corp"))
        #expect(try fixture.connections.find(name: "apple") == apple)
        #expect(try fixture.connections.find(name: "nope") == nil)
        #expect(try fixture.connections.list().map(\.name) == ["apple", "corp"])
        if let sqlite = fixture.store.sqlite {
            try sqlite.checkpoint()
            for file in ["idp.sqlite3", "idp.sqlite3-wal"] {
                let bytes = FileManager.default.contents(atPath: fixture.directory.file(file)) ?? Data()
                #expect(bytes.range(of: Data("s3cret-value".utf8)) == nil, "\(file) holds a client secret in clear")
                #expect(bytes.range(of: Data("PRIVATEKEYBYTES".utf8)) == nil, "\(file) holds the .p8 key in clear")
            }
        } else {
            // PostgreSQL's files are the server's: every stored value, as the server hands it out, is sealed.
            let values = try fixture.store.records.sql.read { try $0.query("SELECT * FROM connections") }.flatMap(\.values)
            for value in values {
                let bytes: [UInt8] = switch value {
                case .text(let text): Array(text.utf8)
                case .blob(let blob): blob
                default: []
                }
                #expect(Data(bytes).range(of: Data("s3cret-value".utf8)) == nil && Data(bytes).range(of: Data("PRIVATEKEYBYTES".utf8)) == nil)
            }
        }
        // Another key-encryption key cannot open them: an error, never a wrong secret.
        let other = SQLiteConnectionStore(store: fixture.store, key: [UInt8](repeating: 1, count: 32))
        #expect(throws: StorageError.self) { try other.find(name: "apple") }
    }

    @Test(arguments: TestBackend.available) func aSealedSecretCannotBeMovedOntoAnotherConnection(_ backend: TestBackend) throws {
        let fixture = try Fixture(backend)
        defer { fixture.store.close() }
        try fixture.connections.create(Self.connection("one"))
        try fixture.connections.create(Self.connection("two"))
        try fixture.store.records.sql.write { db in
            _ = try db.run("UPDATE connections SET sealed_client_secret = (SELECT sealed_client_secret FROM connections WHERE name = 'one') WHERE name = 'two'")
        }
        #expect(throws: StorageError.self) { try fixture.connections.find(name: "two") }
    }

    @Test(arguments: TestBackend.available) func updateReplacesAndDuplicatesAndUnknownsAreRefused(_ backend: TestBackend) throws {
        let fixture = try Fixture(backend)
        defer { fixture.store.close() }
        var corp = Self.connection()
        try fixture.connections.create(corp)
        // The message is the backend's own; the outcome is the same.
        let duplicate = #expect(throws: StorageError.self) { try fixture.connections.create(corp) }
        if case .alreadyExists = duplicate {} else { Issue.record("expected alreadyExists, got \(String(describing: duplicate))") }
        corp.clientSecret = nil
        corp.scopes = ["openid"]
        corp.linkByVerifiedEmail = false
        corp.updatedAt = Sample.now + 10
        try fixture.connections.update(corp)
        #expect(try fixture.connections.find(name: "corp") == corp)
        #expect(throws: StorageError.notFound("connection ghost")) { try fixture.connections.update(Self.connection("ghost")) }
        #expect(throws: StorageError.notFound("connection ghost")) { try fixture.connections.delete(name: "ghost") }
    }

    @Test(arguments: TestBackend.available) func applicationsOfferTheirConnectionsInOrderAndDeletionsCascade(_ backend: TestBackend) throws {
        let fixture = try Fixture(backend)
        defer { fixture.store.close() }
        try fixture.clients.create(Sample.client())
        try fixture.connections.create(Self.connection("corp"))
        try fixture.connections.create(Self.connection("apple", strategy: .apple))
        try fixture.connections.setEnabled(["corp", "apple"], clientID: "client-1")
        #expect(try fixture.connections.enabled(clientID: "client-1") == ["corp", "apple"])
        try fixture.connections.setEnabled(["apple"], clientID: "client-1")
        #expect(try fixture.connections.enabled(clientID: "client-1") == ["apple"])
        #expect(throws: StorageError.notFound("connection ghost")) { try fixture.connections.setEnabled(["ghost"], clientID: "client-1") }
        #expect(throws: StorageError.notFound("application nope")) { try fixture.connections.setEnabled(["corp"], clientID: "nope") }
        // The failed call changed nothing.
        #expect(try fixture.connections.enabled(clientID: "client-1") == ["apple"])
        try fixture.connections.delete(name: "apple")
        #expect(try fixture.connections.enabled(clientID: "client-1").isEmpty)
    }

    @Test(arguments: TestBackend.available) func emailsAreUniqueWithinAConnectionNotAcrossConnections(_ backend: TestBackend) throws {
        let fixture = try Fixture(backend)
        defer { fixture.store.close() }
        try fixture.connections.create(Self.connection("corp"))
        try fixture.connections.create(Self.connection("other"))
        let database = Sample.user("auth0|1", email: "Alice@Example.com")
        try fixture.users.create(database)
        // The database connection keeps its case-insensitive uniqueness.
        #expect(throws: StorageError.self) { try fixture.users.create(Sample.user("auth0|2", email: "alice@example.com")) }
        let corp = User(userID: "oidc|corp|a", email: "alice@example.com", emailVerified: true, createdAt: Sample.now, connection: "corp")
        try fixture.identities.create(corp, with: Identity(connection: "corp", subject: "a", userID: corp.userID, createdAt: Sample.now))
        let other = User(userID: "oidc|other|a", email: "ALICE@example.com", createdAt: Sample.now + 1, connection: "other")
        try fixture.identities.create(other, with: Identity(connection: "other", subject: "a", userID: other.userID, createdAt: Sample.now))
        // A second user with that email in the same connection is refused, and nothing of it is kept.
        let twin = User(userID: "oidc|corp|b", email: "Alice@example.COM", createdAt: Sample.now, connection: "corp")
        #expect(throws: StorageError.self) {
            try fixture.identities.create(twin, with: Identity(connection: "corp", subject: "b", userID: twin.userID, createdAt: Sample.now))
        }
        #expect(try fixture.identities.find(connection: "corp", subject: "b") == nil)
        // find(email:) answers for the database connection only; users(email:) for every connection.
        #expect(try fixture.users.find(email: "alice@EXAMPLE.com")?.userID == "auth0|1")
        #expect(try fixture.identities.users(email: "alice@example.com").map(\.userID) == ["auth0|1", "oidc|corp|a", "oidc|other|a"])
        #expect(try fixture.users.find(userID: "oidc|corp|a") == corp)
        // A connection with users cannot be deleted.
        #expect(throws: StorageError.conflict("connection corp still has 1 user(s): delete them first")) { try fixture.connections.delete(name: "corp") }
    }

    @Test(arguments: TestBackend.available) func identitiesLinkListUpdateAndGoWithTheirUser(_ backend: TestBackend) throws {
        let fixture = try Fixture(backend)
        defer { fixture.store.close() }
        try fixture.connections.create(Self.connection("corp"))
        try fixture.users.create(Sample.user("auth0|1"))
        let identity = Identity(connection: "corp", subject: "upstream-sub", userID: "auth0|1", profile: #"{"email":"alice@example.com"}"#,
                                createdAt: Sample.now)
        try fixture.identities.link(identity)
        #expect(throws: StorageError.self) { try fixture.identities.link(identity) }
        #expect(try fixture.identities.find(connection: "corp", subject: "upstream-sub") == identity)
        #expect(try fixture.identities.list(userID: "auth0|1") == [identity])
        try fixture.identities.updateProfile(connection: "corp", subject: "upstream-sub", profile: #"{"name":"A"}"#, at: Sample.now + 5)
        #expect(try fixture.identities.find(connection: "corp", subject: "upstream-sub")?.profile == #"{"name":"A"}"#)
        #expect(throws: StorageError.notFound("identity corp/x")) {
            try fixture.identities.updateProfile(connection: "corp", subject: "x", profile: "{}", at: Sample.now)
        }
        try fixture.users.delete(userID: "auth0|1")
        #expect(try fixture.identities.find(connection: "corp", subject: "upstream-sub") == nil)
    }
}
