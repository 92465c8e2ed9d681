import Foundation
import Model
import Storage
import Testing
import TestSupport
@testable import Admin

/// `idp-admin connections …`, `apps update --connections` and the identities in `users show`.
@Suite struct ConnectionCommandTests {
    static let oidc = ["connections", "create", "--name", "corp", "--strategy", "oidc", "--client-id", "gh-at-corp",
                       "--client-secret-stdin", "--discovery-url", "https://sso.example.com/.well-known/openid-configuration",
                       "--scopes", "email,profile", "--native-audiences", "com.example.ios,com.example.android", "--link-by-verified-email"]

    @Test func createShowsTheURLsToRegisterAndNeverTheSecret() throws {
        let harness = try AdminHarness("connections")
        let created = harness.run(Self.oidc, input: "upstream-secret-value\n")
        #expect(created.status == 0, "\(created.standardError)")
        #expect(!created.standardOutput.contains("upstream-secret-value"))
        let json = try harness.json(["connections", "show", "corp"])
        #expect(json["callback_url"] as? String == "http://127.0.0.1:8080/login/callback")
        #expect(json["apple_notifications_url"] as? String == "http://127.0.0.1:8080/login/apple/notifications")
        #expect(json["client_secret_set"] as? Bool == true && json["private_key_set"] as? Bool == false)
        #expect(json["scopes"] as? [String] == ["openid", "email", "profile"])
        #expect(json["native_audiences"] as? [String] == ["com.example.ios", "com.example.android"])
        #expect(json["link_by_verified_email"] as? Bool == true)
        let text = harness.run(["connections", "show", "corp"])
        #expect(text.standardOutput.contains("callback_url: http://127.0.0.1:8080/login/callback"))
        #expect(!text.standardOutput.contains("upstream-secret-value"))
        // Stored sealed: the database file never holds it in clear.
        try harness.withStore { try $0.checkpoint() }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: harness.databasePath))
        #expect(bytes.range(of: Data("upstream-secret-value".utf8)) == nil)
        let list = try harness.jsonArray(["connections", "list"])
        #expect(list.map { $0["name"] as? String } == ["corp"])
        #expect(try harness.auditEvents().contains { $0.event == "connections.created" })
    }

    @Test(arguments: [
        (["--authorize-url", "http://idp.example.com/authorize"], "--authorize-url http://idp.example.com/authorize: plain http is allowed only for loopback hosts"),
        (["--token-url", "ftp://idp.example.com/token"], "--token-url ftp://idp.example.com/token: must be https"),
        (["--jwks-url", "https://user:pw@idp.example.com/jwks"], "must not carry credentials"),
    ])
    func nonLoopbackHTTPAndOddURLsAreRefused(extra: [String], message: String) throws {
        let harness = try AdminHarness("connections-url")
        let result = harness.run(["connections", "create", "--name", "x", "--strategy", "oidc", "--client-id", "c",
                                  "--discovery-url", "https://idp.example.com/.well-known/openid-configuration"] + extra)
        #expect(result.status != 0)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    @Test func loopbackHTTPIsAllowedAndExplicitURLsSuffice() throws {
        let harness = try AdminHarness("connections-loopback")
        let json = try harness.json(["connections", "create", "--name", "local", "--strategy", "oidc", "--client-id", "c",
                                     "--authorize-url", "http://127.0.0.1:9000/authorize", "--token-url", "http://localhost:9000/oauth/token",
                                     "--jwks-url", "http://[::1]:9000/jwks", "--issuer", "http://127.0.0.1:9000/"])
        #expect(json["token_url"] as? String == "http://localhost:9000/oauth/token")
        // Without discovery, an oidc connection needs all four.
        let missing = harness.run(["connections", "create", "--name", "half", "--strategy", "oidc", "--client-id", "c",
                                   "--authorize-url", "https://a.example/authorize"])
        #expect(missing.status != 0 && missing.standardError.contains("an oidc connection needs --discovery-url"))
        let badName = harness.run(["connections", "create", "--name", "Bad_Name", "--strategy", "oidc", "--client-id", "c"])
        #expect(badName.status != 0 && badName.standardError.contains("--name Bad_Name: use lower-case letters"))
        let badStrategy = harness.run(["connections", "create", "--name", "x", "--strategy", "saml", "--client-id", "c"])
        #expect(badStrategy.status != 0 && badStrategy.standardError.contains("--strategy must be apple, google or oidc, not saml"))
    }

    @Test func appleKeepsItsP8KeySealed() throws {
        let harness = try AdminHarness("connections-apple")
        let p8 = harness.directory.file("AuthKey.p8")
        try "-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg\n-----END PRIVATE KEY-----\n".write(toFile: p8, atomically: true, encoding: .utf8)
        let json = try harness.json(["connections", "create", "--name", "apple", "--strategy", "apple", "--client-id", "com.example.web",
                                     "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--private-key-file", p8])
        #expect(json["private_key_set"] as? Bool == true && json["team_id"] as? String == "TEAM123456")
        let noKey = harness.run(["connections", "create", "--name", "apple2", "--strategy", "apple", "--client-id", "x"])
        #expect(noKey.status != 0 && noKey.standardError.contains("an apple connection needs --team-id, --key-id and --private-key-file"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: harness.databasePath))
        #expect(bytes.range(of: Data("MIGTAgEAMBMGByqGSM49".utf8)) == nil)
    }

    @Test func updateChangesOnlyWhatIsGivenAndDeleteRemoves() throws {
        let harness = try AdminHarness("connections-update")
        #expect(harness.run(Self.oidc, input: "s\n").status == 0)
        let json = try harness.json(["connections", "update", "corp", "--hosted-domain", "example.com", "--no-link-by-verified-email"])
        #expect(json["hosted_domain"] as? String == "example.com" && json["link_by_verified_email"] as? Bool == false)
        #expect(json["client_secret_set"] as? Bool == true && json["client_id"] as? String == "gh-at-corp")
        let nothing = harness.run(["connections", "update", "corp"])
        #expect(nothing.status != 0 && nothing.standardError.contains("nothing to change"))
        let app = try harness.createApp()
        let enabled = try harness.json(["apps", "update", app.id, "--connections", "corp"])
        #expect(enabled["connections"] as? [String] == ["corp"])
        let unknown = harness.run(["apps", "update", app.id, "--connections", "corp,ghost"])
        #expect(unknown.status != 0 && unknown.standardError.contains("connection ghost does not exist"))
        #expect(try harness.json(["connections", "delete", "corp", "--yes"])["deleted"] as? Bool == true)
        let gone = harness.run(["connections", "show", "corp"])
        #expect(gone.status != 0 && gone.standardError.contains("no connection named corp"))
    }

    @Test func usersShowListsIdentities() throws {
        let harness = try AdminHarness("connections-users")
        #expect(harness.run(Self.oidc, input: "s\n").status == 0)
        let userID = try harness.createUser("ada@example.com")
        try harness.withStore { store in
            try SQLiteIdentityStore(store: store).link(Identity(connection: "corp", subject: "upstream-42", userID: userID, createdAt: Date()))
        }
        let json = try harness.json(["users", "show", userID])
        let identities = try #require(json["identities"] as? [[String: Any]])
        #expect(identities.map { $0["connection"] as? String } == ["corp"])
        #expect(identities.map { $0["user_id"] as? String } == ["upstream-42"])
        #expect(harness.run(["users", "show", userID]).standardOutput.contains("identities:\n  corp upstream-42"))
        #expect(harness.run(["help"]).standardOutput.contains("connections create"))
    }
}
