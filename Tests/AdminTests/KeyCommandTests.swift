import Foundation
import Storage
import Testing
import TestSupport
@testable import Admin

@Suite struct KeyCommandTests {
    let directory: TemporaryDirectory
    let environment: [String: String]

    init() throws {
        directory = try TemporaryDirectory("admin-keys")
        environment = ["IDP_DATABASE": directory.file("idp.sqlite3"), "USER": "ops"]
        let created = AdminCLI.run(["db", "init"], environment: environment, systemConfigPath: nil)
        #expect(created.status == 0, "db init: \(created.standardError)")
    }

    private func run(_ words: [String]) -> AdminCLI.Result { AdminCLI.run(words, environment: environment) }

    private func json(_ result: AdminCLI.Result) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
    }

    @Test func listShowsOneActiveKeyPerAlgorithmWithTheDocumentedMembers() throws {
        let result = run(["keys", "list", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let keys = try #require(try json(result) as? [[String: String]])
        #expect(keys.map { $0["alg"] }.compactMap { $0 }.sorted() == ["ES256", "RS256"])
        for key in keys {
            #expect(Set(key.keys) == ["kid", "alg", "status", "created_at"])
            #expect(key["status"] == "active")
            #expect(key["created_at"]?.hasSuffix("Z") == true)
        }
        let table = run(["keys", "list"])
        #expect(table.standardOutput.hasPrefix("KID"))
    }

    @Test func rotateRetireDeleteLifecycleIsAudited() throws {
        let original = try #require(try json(run(["keys", "list", "--json"])) as? [[String: String]])
        let oldKid = try #require(original.first { $0["alg"] == "ES256" }?["kid"])

        let rotated = run(["keys", "rotate", "--alg", "ES256", "--json"])
        #expect(rotated.status == 0)
        let newKey = try #require(try json(rotated) as? [String: String])
        #expect(newKey["status"] == "active")

        let after = try #require(try json(run(["keys", "list", "--json"])) as? [[String: String]])
        #expect(after.first { $0["kid"] == oldKid }?["status"] == "retired")

        // The only active ES256 key cannot be retired or deleted.
        let retireActive = run(["keys", "retire", newKey["kid"]!])
        #expect(retireActive.status == 1)
        #expect(retireActive.standardError.contains("only active ES256 key"))
        let deleteActive = run(["keys", "delete", newKey["kid"]!])
        #expect(deleteActive.status == 1)
        #expect(deleteActive.standardError.contains("is active"))

        // Retired a moment ago: tokens it signed may still be alive, so only --force deletes it.
        let tooEarly = run(["keys", "delete", oldKid])
        #expect(tooEarly.status == 1 && tooEarly.standardError.contains("--force"), "\(tooEarly.standardError)")
        #expect(run(["keys", "delete", oldKid, "--force"]).status == 0)
        #expect(run(["keys", "delete", oldKid, "--force"]).status == 1)  // Not found any more.

        let store = try Store(path: environment["IDP_DATABASE"]!)
        defer { store.close() }
        let events = try AuditStore(store: store).tail(limit: 10)
        #expect(events.map(\.event) == ["keys.rotated", "keys.deleted"])
        #expect(events.allSatisfy { $0.actor == "ops" || $0.actor == NSUserName() })
        #expect(events.first?.details["kid"] == newKey["kid"])
    }

    @Test func rotateWithoutAlgRotatesBothAndPrintsAnArray() throws {
        let result = run(["keys", "rotate", "--json"])
        #expect(result.status == 0)
        let keys = try #require(try json(result) as? [[String: String]])
        #expect(keys.compactMap { $0["alg"] }.sorted() == ["ES256", "RS256"])
    }

    @Test(arguments: [
        (["keys", "rotate", "--alg", "HS256"], Int32(2), "--alg must be RS256 or ES256"),
        (["keys", "retire"], Int32(2), "expected 1 argument"),
        (["keys", "retire", "nope"], Int32(1), "not found"),
        (["keys", "delete", "a", "b"], Int32(2), "expected 1 argument"),
        (["keys", "rotat"], Int32(2), "did you mean \"keys rotate\"?"),
    ])
    func errorsHaveTheDocumentedExitStatus(words: [String], status: Int32, message: String) {
        let result = run(words)
        #expect(result.status == status)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    @Test func aConfigurationErrorExits78() {
        let result = AdminCLI.run(["keys", "list"], environment: ["IDP_DATABASE": ""])
        #expect(result.status == 78)
    }
}
