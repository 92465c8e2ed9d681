import Crypto
import Foundation
import Model
import Storage
import Testing
import TestSupport
@testable import Admin

/// `idp-admin apps update | delete | rotate-secret`, and the real allow-list policy (negative-tests A08, L01).
@Suite struct AppManagementTests {
    let admin: AdminHarness

    init() throws { admin = try AdminHarness("admin-apps-manage") }

    /// A08: what an operator may never register, checked by the real `RedirectURIPolicy`, on create and on update.
    @Test(arguments: [
        ("native", "--callbacks", "javascript:alert(1)", "scheme is never allowed"),
        ("native", "--callbacks", "data:text/html;x", "scheme is never allowed"),
        ("native", "--callbacks", "file:///etc/passwd", "scheme is never allowed"),
        ("regular", "--callbacks", "https://app.example.com/cb#section", "fragments"),
        ("regular", "--callbacks", "https://*.com/cb", "top-level domain"),
        ("regular", "--callbacks", "http://app.example.com/cb", "plain http is only allowed for loopback hosts"),
        ("native", "--callbacks", "http://app.example.com/cb", "plain http is only allowed for loopback hosts"),
        ("spa", "--callbacks", "com.example.app://callback", "only allowed for native apps"),
        ("spa", "--web-origins", "https://app.example.com/", "a web origin is scheme://host[:port] only"),
        ("regular", "--logout-urls", "https://app.example.com/bye#x", "fragments"),
    ])
    func dangerousURLsAreRefusedByTheRealPolicy(type: String, flag: String, url: String, message: String) throws {
        let created = admin.run(["apps", "create", "--name", "Bad", "--type", type, flag, url])
        #expect(created.status == 1, "\(created.standardError)")
        #expect(created.standardError.contains("\(flag) \(url):"), "\(created.standardError)")
        #expect(created.standardError.contains(message), "\(created.standardError)")
        #expect(try admin.withStore { try SQLiteClientStore(store: $0).list() }.isEmpty)

        let app = try admin.createApp(type, callbacks: type == "native" ? "com.example.app://callback" : "https://app.example.com/callback")
        let before = try #require(try admin.client(app.id))
        let updated = admin.run(["apps", "update", app.id, flag, url])
        #expect(updated.status == 1, "\(updated.standardError)")
        #expect(updated.standardError.contains("\(flag) \(url):"), "\(updated.standardError)")
        #expect(try admin.client(app.id) == before)
    }

    @Test(arguments: [
        ("native", "com.example.app://callback,http://127.0.0.1/callback,https://app.example.com/ios/callback"),
        ("regular", "https://*.example.com/callback,http://localhost:3000/callback"),
        ("spa", "https://spa.example.com"),
    ])
    func acceptableURLsAreRegistered(type: String, callbacks: String) throws {
        let app = try admin.createApp(type, callbacks: callbacks)
        #expect(try admin.client(app.id)?.callbacks == callbacks.split(separator: ",").map(String.init))
    }

    @Test func updateChangesEverySettingGiven() throws {
        let app = try admin.createApp("regular")
        let fingerprint = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
        let shown = try admin.json([
            "apps", "update", app.id, "--name", "Renamed",
            "--callbacks", "https://a.example.com/cb,https://b.example.com/cb", "--logout-urls", "https://a.example.com/bye",
            "--web-origins", "https://a.example.com", "--auth-method", "post", "--grants", "authorization_code,refresh_token,client_credentials",
            "--id-token-alg", "ES256", "--access-token-lifetime", "600", "--id-token-lifetime", "300",
            "--refresh-absolute-lifetime", "86400", "--refresh-idle-lifetime", "3600", "--refresh-reuse-interval", "0",
            "--refresh-survives-logout", "false", "--introspection", "true", "--apple-team-id", "ABCDE12345",
            "--bundle-id", "com.example.ios", "--android-package", "com.example.android", "--android-sha256", fingerprint,
        ])
        #expect(shown["name"] as? String == "Renamed")
        let client = try #require(try admin.client(app.id))
        #expect(client.name == "Renamed")
        #expect(client.type == .regular)
        #expect(client.callbacks == ["https://a.example.com/cb", "https://b.example.com/cb"])
        #expect(client.logoutURLs == ["https://a.example.com/bye"])
        #expect(client.webOrigins == ["https://a.example.com"])
        #expect(client.authMethods == [.clientSecretPost])
        #expect(client.grantTypes == [.authorizationCode, .refreshToken, .clientCredentials])
        #expect(client.idTokenAlgorithm == "ES256")
        #expect(client.accessTokenLifetime == 600 && client.idTokenLifetime == 300)
        #expect(client.refreshAbsoluteLifetime == 86_400 && client.refreshIdleLifetime == 3600)
        #expect(client.refreshReuseInterval == 0)
        #expect(client.refreshSurvivesLogout == false && client.introspectionEnabled == true)
        #expect(client.appleTeamID == "ABCDE12345" && client.bundleID == "com.example.ios")
        #expect(client.androidPackage == "com.example.android" && client.androidSHA256 == [fingerprint])
        #expect(client.secretHash == SecretDigest.hash(try #require(app.secret)))  // The secret is untouched.

        // Only what is given changes; an empty list or value clears it.
        _ = try admin.json(["apps", "update", app.id, "--callbacks", "", "--bundle-id", "", "--introspection", "false"])
        let after = try #require(try admin.client(app.id))
        #expect(after.callbacks.isEmpty && after.bundleID == nil && after.introspectionEnabled == false)
        #expect(after.logoutURLs == client.logoutURLs && after.name == "Renamed" && after.accessTokenLifetime == 600)
        #expect(after.appleTeamID == "ABCDE12345")
    }

    @Test(arguments: [
        (["--access-token-lifetime", "soon"], Int32(2), "--access-token-lifetime must be a whole number of seconds"),
        (["--access-token-lifetime", "0"], Int32(2), "--access-token-lifetime must be a whole number of seconds from 1"),
        (["--id-token-lifetime", "-5"], Int32(2), "--id-token-lifetime must be"),
        (["--refresh-reuse-interval", "61"], Int32(2), "--refresh-reuse-interval must be a whole number of seconds from 0 to 60"),
        (["--refresh-absolute-lifetime", "99999999999"], Int32(2), "--refresh-absolute-lifetime must be"),
        (["--refresh-idle-lifetime", "1.5"], Int32(2), "--refresh-idle-lifetime must be"),
        (["--refresh-survives-logout", "yes"], Int32(2), "--refresh-survives-logout must be on or off"),
        (["--introspection", "1"], Int32(2), "--introspection must be on or off"),
        (["--auth-method", "jwt"], Int32(2), "--auth-method must be none, post or basic"),
        (["--auth-method", "none"], Int32(1), "--auth-method none: a regular application is confidential"),
        (["--grants", "implicit"], Int32(2), "unknown grant type implicit"),
        (["--id-token-alg", "HS256"], Int32(2), "--id-token-alg must be RS256 or ES256"),
        (["--refresh-idle-lifetime", "3000000"], Int32(1), "is longer than --refresh-absolute-lifetime"),
        (["--apple-team-id", "short"], Int32(1), "--apple-team-id short"),
        (["--name", "  "], Int32(2), "--name needs a value"),
        (["--type", "spa"], Int32(2), "unknown flag --type"),
        (["--calbacks", "https://x.example.com/cb"], Int32(2), "unknown flag --calbacks (did you mean --callbacks?)"),
        ([], Int32(2), "nothing to change"),
    ])
    func badUpdatesAreRefusedAndChangeNothing(flags: [String], status: Int32, message: String) throws {
        let app = try admin.createApp("regular")
        let before = try #require(try admin.client(app.id))
        let result = admin.run(["apps", "update", app.id] + flags)
        #expect(result.status == status, "\(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(try admin.client(app.id) == before)
    }

    @Test func createAcceptsTheLifetimeAndFlagSettingsToo() throws {
        let app = try admin.createApp("native", callbacks: "com.example.app://cb", extra: [
            "--access-token-lifetime", "900", "--id-token-lifetime", "600", "--refresh-absolute-lifetime", "7200",
            "--refresh-idle-lifetime", "3600", "--refresh-reuse-interval", "60", "--refresh-survives-logout", "false",
            "--introspection", "true"])
        let client = try #require(try admin.client(app.id))
        #expect(client.accessTokenLifetime == 900 && client.idTokenLifetime == 600)
        #expect(client.refreshAbsoluteLifetime == 7200 && client.refreshIdleLifetime == 3600 && client.refreshReuseInterval == 60)
        #expect(!client.refreshSurvivesLogout && client.introspectionEnabled)
        let defaults = try #require(try admin.client(try admin.createApp("spa", callbacks: "https://spa.example.com/cb").id))
        #expect(defaults.refreshReuseInterval == 10)
    }

    @Test(arguments: [["apps", "update", "nope", "--name", "x"], ["apps", "delete", "nope"], ["apps", "rotate-secret", "nope"],
                      ["apps", "show", "nope"]])
    func anUnknownClientIDExits1(words: [String]) {
        let result = admin.run(words)
        #expect(result.status == 1)
        #expect(result.standardError.contains("no application with client_id nope"), "\(result.standardError)")
    }

    @Test func updatesAreAuditedWithTheChangedFieldsAndTheOperator() throws {
        let app = try admin.createApp("regular")
        _ = try admin.json(["apps", "update", app.id, "--name", "New", "--access-token-lifetime", "60"])
        let event = try #require(try admin.auditEvents().last)
        #expect(event.event == "apps.updated" && event.actor == "ops" && event.clientID == app.id)
        #expect(event.details == ["changed": "name,access-token-lifetime"])
    }

    /// L01: the new secret is shown once, stored as a digest, never listed; the old one stops matching.
    @Test func rotateSecretReplacesTheSecret() throws {
        let app = try admin.createApp("regular")
        let oldSecret = try #require(app.secret)
        let rotated = try admin.json(["apps", "rotate-secret", app.id])
        #expect(Set(rotated.keys) == ["client_id", "client_secret"])
        let newSecret = try #require(rotated["client_secret"] as? String)
        #expect(newSecret.count == 43 && newSecret != oldSecret)
        let hash = try #require(try admin.client(app.id)?.secretHash)
        #expect(hash == SecretDigest.hash(newSecret))
        #expect(SecretDigest.matches(newSecret, storedHash: hash))
        #expect(!SecretDigest.matches(oldSecret, storedHash: hash))

        let text = admin.run(["apps", "rotate-secret", app.id])
        #expect(text.status == 0)
        #expect(text.standardOutput.contains("shown only once"))
        for words in [["apps", "list"], ["apps", "list", "--json"], ["apps", "show", app.id, "--json"], ["audit", "tail", "--json"]] {
            let output = admin.run(words).standardOutput
            #expect(!output.contains(newSecret) && !output.contains(hash), "\(words)")
        }
        let events = try admin.auditEvents().filter { $0.event == "apps.secret_rotated" }
        #expect(events.count == 2 && events.allSatisfy { $0.actor == "ops" && $0.clientID == app.id })
    }

    @Test(arguments: ["native", "spa"])
    func aPublicAppHasNoSecretToRotate(type: String) throws {
        let app = try admin.createApp(type, callbacks: type == "native" ? "com.example.app://cb" : "https://spa.example.com/cb")
        let result = admin.run(["apps", "rotate-secret", app.id])
        #expect(result.status == 1)
        #expect(result.standardError.contains("public (\(type)) application"))
        #expect(try admin.client(app.id)?.secretHash == nil)
    }

    @Test func deleteRemovesTheAppWithItsCodesGrantsAndTokens() throws {
        let app = try admin.createApp("regular")
        let other = try admin.createApp("regular")
        let userID = try admin.createUser("ada@example.com")
        let held = try admin.seedHoldings(userID: userID, clientID: app.id)
        let kept = try admin.seedHoldings(userID: userID, clientID: other.id)

        let deleted = try admin.json(["apps", "delete", app.id])
        #expect(deleted["deleted"] as? Bool == true)
        #expect(try admin.client(app.id) == nil)
        #expect(try admin.count("SELECT count(*) FROM grants WHERE grant_id = ?", [.text(held.grantID)]) == 0)
        #expect(try admin.count("SELECT count(*) FROM authorization_codes WHERE code_hash = ?", [.text(held.codeHash)]) == 0)
        #expect(try admin.count("SELECT count(*) FROM refresh_tokens WHERE token_hash = ?", [.text(held.refreshHash)]) == 0)
        #expect(try admin.count("SELECT count(*) FROM client_allowed_urls WHERE client_id = ?", [.text(app.id)]) == 0)
        // The other app's and the user's things stay.
        #expect(try admin.count("SELECT count(*) FROM grants WHERE grant_id = ?", [.text(kept.grantID)]) == 1)
        #expect(try admin.count("SELECT count(*) FROM refresh_tokens WHERE token_hash = ?", [.text(kept.refreshHash)]) == 1)
        #expect(try admin.user(userID) != nil)

        let event = try #require(try admin.auditEvents().last)
        #expect(event.event == "apps.deleted" && event.clientID == app.id && event.actor == "ops")
        #expect(admin.run(["apps", "delete", app.id]).status == 1)
    }

    @Test func everyAppCommandHasHelpAndJSON() {
        for command in AppCommands.all {
            #expect(command.switchFlags.contains("--json"))
            #expect(!command.summary.isEmpty)
            #expect(AdminCLI.run(["help"] + command.path, environment: [:]).standardOutput.contains("Usage: idp-admin \(command.usage)"))
        }
        #expect(AppCommands.update.valueFlags.filter { $0 != "--config" }.sorted() == (AppCommands.settingFlags + ["--connections"]).sorted())
        #expect(Set(AppCommands.create.valueFlags).isSuperset(of: AppCommands.settingFlags))
    }
}
