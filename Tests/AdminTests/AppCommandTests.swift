import Crypto
import Foundation
import Model
import Storage
import Testing
import TestSupport
@testable import Admin

/// `idp-admin apps create | list | show`, with URLs checked by the real `RedirectURIPolicy`.
@Suite struct AppCommandTests {
    let directory: TemporaryDirectory
    let environment: [String: String]

    init() throws {
        directory = try TemporaryDirectory("admin-apps")
        environment = ["IDP_DATABASE": directory.file("idp.sqlite3"), "SUDO_USER": "ops"]
        let created = AdminCLI.run(["db", "init"], environment: environment, systemConfigPath: nil)
        #expect(created.status == 0, "db init: \(created.standardError)")
    }

    private func run(_ words: [String]) -> AdminCLI.Result {
        AdminCLI.run(words, environment: environment)
    }

    private func object(_ result: AdminCLI.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    }

    private func withStore<T>(_ body: (Store) throws -> T) throws -> T {
        let store = try Store(path: environment["IDP_DATABASE"]!)
        defer { store.close() }
        return try body(store)
    }

    @Test(arguments: Client.ApplicationType.allCases)
    func createAppliesTheDefaultsOfEachType(type: Client.ApplicationType) throws {
        let result = run(["apps", "create", "--name", "My \(type.rawValue)", "--type", type.rawValue, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let json = try object(result)
        let clientID = try #require(json["client_id"] as? String)
        #expect(clientID.count == 32)
        #expect(clientID.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        // A public app created without callbacks is warned that it cannot sign anyone in.
        #expect(Set(json.keys) == (type.isPublic ? ["client_id", "warnings"] : ["client_id", "client_secret"]))
        if type.isPublic { #expect((json["warnings"] as? [String])?.first?.contains("without callback URLs") == true) }

        let client = try #require(try withStore { try SQLiteClientStore(store: $0).find(clientID: clientID) })
        #expect(client.name == "My \(type.rawValue)")
        #expect(client.type == type)
        #expect(client.authMethods == Client.defaultAuthMethods(for: type))
        #expect(client.grantTypes == Client.defaultGrantTypes(for: type))
        #expect(client.idTokenAlgorithm == "RS256")
        if type.isPublic {
            #expect(client.secretHash == nil)
        } else {
            let secret = try #require(json["client_secret"] as? String)
            #expect(secret.count == 43)  // Random.token(bytes: 32)
            let hash = try #require(client.secretHash)
            #expect(hash == SecretDigest.hash(secret) && hash.count == 64)  // SHA-256 hex, never the secret
            #expect(!hash.contains(secret))
            #expect(SecretDigest.matches(secret, storedHash: hash))
        }
    }

    @Test func textOutputShowsTheSecretOnceWithAWarningAndListAndShowNeverDo() throws {
        let created = run(["apps", "create", "--name", "Web", "--type", "regular", "--callbacks", "https://web.example/cb"])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(created.standardOutput.contains("shown only once"))
        let secretLine = try #require(created.standardOutput.split(separator: "\n").first { $0.hasPrefix("client_secret:") })
        let secret = String(secretLine.dropFirst("client_secret:".count)).trimmingCharacters(in: .whitespaces)
        let idLine = try #require(created.standardOutput.split(separator: "\n").first { $0.hasPrefix("client_id:") })
        let clientID = String(idLine.dropFirst("client_id:".count)).trimmingCharacters(in: .whitespaces)
        let hash = try #require(try withStore { try SQLiteClientStore(store: $0).find(clientID: clientID)?.secretHash })
        #expect(SecretDigest.matches(secret, storedHash: hash))

        for words in [["apps", "list"], ["apps", "list", "--json"], ["apps", "show", clientID], ["apps", "show", clientID, "--json"]] {
            let result = run(words)
            #expect(result.status == 0, "\(words): \(result.standardError)")
            #expect(!result.standardOutput.contains(secret), "\(words) printed the secret")
            #expect(!result.standardOutput.contains(hash) && !result.standardOutput.contains("$scrypt$"), "\(words) printed the hash")
        }
        let table = run(["apps", "list"]).standardOutput
        #expect(table.hasPrefix("CLIENT_ID"))
        #expect(table.contains("NAME") && table.contains("TYPE") && table.contains("CALLBACKS"))
        #expect(table.contains(clientID) && table.contains("https://web.example/cb"))
    }

    @Test func createStoresEveryFlagAndShowPrintsIt() throws {
        let fingerprint = (0..<32).map { String(format: "%02x", $0) }.joined(separator: ":")
        let result = run([
            "apps", "create", "--name", "iOS", "--type", "native",
            "--callbacks", "com.example.ios://cb, https://example.com/ios/cb", "--logout-urls", "com.example.ios://bye",
            "--web-origins", "https://example.com", "--grants", "authorization_code,refresh_token",
            "--auth-method", "none", "--id-token-alg", "ES256", "--apple-team-id", "ABCDE12345",
            "--bundle-id", "com.example.ios", "--android-package", "com.example.android", "--android-sha256", fingerprint, "--json",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let clientID = try #require(try object(result)["client_id"] as? String)

        let shown = try object(run(["apps", "show", clientID, "--json"]))
        #expect(shown["client_id"] as? String == clientID)
        #expect(shown["callbacks"] as? [String] == ["com.example.ios://cb", "https://example.com/ios/cb"])
        #expect(shown["logout_urls"] as? [String] == ["com.example.ios://bye"])
        #expect(shown["web_origins"] as? [String] == ["https://example.com"])
        #expect(shown["auth_methods"] as? [String] == ["none"])
        #expect(shown["grant_types"] as? [String] == ["authorization_code", "refresh_token"])
        #expect(shown["id_token_alg"] as? String == "ES256")
        #expect(shown["apple_team_id"] as? String == "ABCDE12345")
        #expect(shown["bundle_id"] as? String == "com.example.ios")
        #expect(shown["android_package"] as? String == "com.example.android")
        #expect(shown["android_sha256"] as? [String] == [fingerprint.uppercased()])
        #expect(shown["has_secret"] as? Bool == false)
        #expect(shown["secret_hash"] == nil)

        let listed = try #require(try JSONSerialization.jsonObject(with: Data(run(["apps", "list", "--json"]).standardOutput.utf8)) as? [[String: Any]])
        #expect(listed.count == 1)
        #expect(Set(listed[0].keys) == ["client_id", "name", "type", "callbacks"])
        #expect(run(["apps", "show", "nope"]).status == 1)
    }

    @Test func aConfidentialAppCanBeNarrowedToOneAuthMethod() throws {
        let result = run(["apps", "create", "--name", "Backend", "--type", "m2m", "--auth-method", "post", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let clientID = try #require(try object(result)["client_id"] as? String)
        let client = try #require(try withStore { try SQLiteClientStore(store: $0).find(clientID: clientID) })
        #expect(client.authMethods == [.clientSecretPost])
        #expect(client.grantTypes == [.clientCredentials])
    }

    @Test(arguments: [
        (["--type", "desktop"], Int32(2), "--type must be native, spa, regular or m2m"),
        (["--type"], Int32(2), "--type needs a value"),
        ([], Int32(2), "--type is required"),
        (["--type", "spa", "--auth-method", "jwt"], Int32(2), "--auth-method must be none, post or basic"),
        (["--type", "spa", "--auth-method", "post"], Int32(1), "--auth-method post"),
        (["--type", "native", "--auth-method", "basic"], Int32(1), "--auth-method basic"),
        (["--type", "regular", "--auth-method", "none"], Int32(1), "--auth-method none"),
        (["--type", "m2m", "--auth-method", "none"], Int32(1), "--auth-method none"),
        (["--type", "regular", "--grants", "implicit"], Int32(2), "unknown grant type implicit"),
        (["--type", "m2m", "--grants", "authorization_code"], Int32(1), "--grants authorization_code"),
        (["--type", "spa", "--grants", "client_credentials"], Int32(1), "--grants client_credentials"),
        (["--type", "native", "--grants", "client_credentials,refresh_token"], Int32(1), "--grants client_credentials"),
        (["--type", "native", "--id-token-alg", "HS256"], Int32(2), "--id-token-alg must be RS256 or ES256"),
        (["--type", "regular", "--callbacks", "https://*.com/cb"], Int32(1), "--callbacks https://*.com/cb:"),
        (["--type", "spa", "--logout-urls", "http://example.com/bye"], Int32(1), "--logout-urls http://example.com/bye: plain http is only allowed for loopback hosts"),
        (["--type", "spa", "--web-origins", "https://example.com/path"], Int32(1), "--web-origins https://example.com/path: a web origin is scheme://host[:port] only"),
        (["--type", "native", "--apple-team-id", "abc"], Int32(1), "--apple-team-id abc"),
        (["--type", "native", "--android-sha256", "AA:BB"], Int32(1), "--android-sha256 AA:BB"),
    ])
    func invalidFlagsAreRefusedNamingTheFlag(flags: [String], status: Int32, message: String) throws {
        let result = run(["apps", "create", "--name", "Bad"] + flags)
        #expect(result.status == status, "\(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
        #expect(try withStore { try SQLiteClientStore(store: $0).list() }.isEmpty)
    }

    @Test func aMissingNameIsAUsageError() {
        let result = run(["apps", "create", "--type", "spa"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--name is required"))
    }

    @Test func creationIsAuditedWithTheOperatorAndWithoutTheSecret() throws {
        let result = run(["apps", "create", "--name", "Audited", "--type", "regular", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let json = try object(result)
        let secret = try #require(json["client_secret"] as? String)
        let events = try withStore { try AuditStore(store: $0).tail(limit: 10) }
        #expect(events.map(\.event) == ["apps.created"])
        #expect(events[0].actor == "ops")
        #expect(events[0].clientID == json["client_id"] as? String)
        #expect(events[0].details == ["name": "Audited", "type": "regular"])
        #expect(!events[0].details.values.contains(secret))
    }

    @Test func clientIDsAreBase62AndDistinct() {
        let ids = (0..<200).map { _ in AppCommands.newClientID() }
        #expect(Set(ids).count == 200)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
    }
}
