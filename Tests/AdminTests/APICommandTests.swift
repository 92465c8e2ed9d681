import Foundation
import Model
import Storage
import Testing
import TestSupport
@testable import Admin

/// `idp-admin apis …` and `idp-admin apps grant`.
@Suite struct APICommandTests {
    let directory: TemporaryDirectory
    let environment: [String: String]

    init() throws {
        directory = try TemporaryDirectory("admin-apis")
        environment = ["IDP_DATABASE": directory.file("idp.sqlite3"), "SUDO_USER": "ops"]
        let created = AdminCLI.run(["db", "init"], environment: environment, systemConfigPath: nil)
        #expect(created.status == 0, "db init: \(created.standardError)")
    }

    private func run(_ words: [String]) -> AdminCLI.Result { AdminCLI.run(words, environment: environment) }

    private func object(_ result: AdminCLI.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    }

    private func withStore<T>(_ body: (Store) throws -> T) throws -> T {
        let store = try Store(path: environment["IDP_DATABASE"]!)
        defer { store.close() }
        return try body(store)
    }

    @Test func createListShowUpdateDeleteAreAudited() throws {
        let created = run(["apis", "create", "--identifier", "https://api.example.com/", "--name", "Orders", "--scopes", "read:orders, write:orders,read:orders",
                           "--token-lifetime", "900", "--signing-alg", "ES256", "--json"])
        #expect(created.status == 0, "\(created.standardError)")
        let json = try object(created)
        let apiID = try #require(json["api_id"] as? String)
        #expect(json["identifier"] as? String == "https://api.example.com/")
        #expect(json["scopes"] as? [String] == ["read:orders", "write:orders"])
        #expect(json["token_lifetime"] as? Int == 900)
        #expect(json["signing_alg"] as? String == "ES256")

        #expect(run(["apis", "create", "--identifier", "https://api.example.com/", "--name", "Again"]).status == 1)
        #expect(run(["apis", "create", "--identifier", "https://x.example/", "--name", "X", "--signing-alg", "HS256"]).status == 2)
        #expect(run(["apis", "create", "--identifier", "https://x.example/", "--name", "X", "--token-lifetime", "5"]).status == 2)
        #expect(run(["apis", "create", "--name", "X"]).status == 2)

        let list = run(["apis", "list"])
        #expect(list.standardOutput.hasPrefix("API_ID"))
        #expect(list.standardOutput.contains("https://api.example.com/"))
        // show by identifier or id
        #expect(try object(run(["apis", "show", "https://api.example.com/", "--json"]))["api_id"] as? String == apiID)
        #expect(try object(run(["apis", "show", apiID, "--json"]))["name"] as? String == "Orders")
        #expect(run(["apis", "show", "nope"]).status == 1)

        let updated = run(["apis", "update", apiID, "--name", "Orders v2", "--scopes", "read:orders", "--json"])
        #expect(updated.status == 0, "\(updated.standardError)")
        #expect(try object(updated)["scopes"] as? [String] == ["read:orders"])
        #expect(run(["apis", "update", apiID]).status == 2)

        #expect(run(["apis", "delete", apiID]).status == 0)
        #expect(run(["apis", "delete", apiID]).status == 1)
        let events = try withStore { try AuditStore(store: $0).tail(limit: 100) }.map(\.event)
        #expect(events.contains("apis.created") && events.contains("apis.updated") && events.contains("apis.deleted"))
    }

    @Test func grantGivesAConfidentialAppScopesTheAPIDefines() throws {
        let app = try object(run(["apps", "create", "--name", "Backend", "--type", "m2m", "--json"]))
        let clientID = try #require(app["client_id"] as? String)
        #expect(run(["apis", "create", "--identifier", "https://api.example.com/", "--name", "Orders", "--scopes", "read:orders,write:orders"]).status == 0)

        let granted = run(["apps", "grant", clientID, "--api", "https://api.example.com/", "--scopes", "read:orders", "--json"])
        #expect(granted.status == 0, "\(granted.standardError)")
        #expect(try object(granted)["scopes"] as? [String] == ["read:orders"])
        // Scopes the API does not define, unknown apps and APIs, public apps: refused.
        #expect(run(["apps", "grant", clientID, "--api", "https://api.example.com/", "--scopes", "delete:orders"]).status == 1)
        #expect(run(["apps", "grant", "nobody", "--api", "https://api.example.com/", "--scopes", "read:orders"]).status == 1)
        #expect(run(["apps", "grant", clientID, "--api", "https://nope.example/", "--scopes", ""]).status == 1)
        #expect(run(["apps", "grant", clientID, "--api", "https://api.example.com/"]).status == 2)
        let spa = try object(run(["apps", "create", "--name", "SPA", "--type", "spa", "--json"]))
        #expect(run(["apps", "grant", try #require(spa["client_id"] as? String), "--api", "https://api.example.com/", "--scopes", ""]).status == 1)

        // Regranting replaces the scopes.
        #expect(run(["apps", "grant", clientID, "--api", "https://api.example.com/", "--scopes", "write:orders,read:orders"]).status == 0)
        let grants = try withStore { try SQLiteAPIStore(store: $0).clientGrants(clientID: clientID) }
        #expect(grants.map(\.scopes) == [["write:orders", "read:orders"]])
        let events = try withStore { try AuditStore(store: $0).tail(limit: 100) }.filter { $0.event == "apps.granted" }
        #expect(events.count == 2)
        #expect(events.first?.actor == "ops")
        #expect(run(["help", "apps", "grant"]).standardOutput.contains("client_credentials"))
    }
}
