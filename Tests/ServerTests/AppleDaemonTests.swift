import Foundation
import KeyManagement
import Model
import Settings
import Storage
import Testing
import TestSupport

/// The real daemon with the Apple stand-in over loopback: a connection set up with `idp-admin`,
/// Apple's notifications POSTed by the stand-in itself, and `idp-admin users delete` whose Apple
/// revocation the daemon's background sender delivers.
@Suite struct AppleDaemonTests {
    static let subject = "001234.daemon.alice"

    static func json(_ text: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
    }

    @Test func notificationsAndAnOperatorsDeletionReachTheDaemonAndApple() throws {
        let stub = try AppleGoogleStub(.apple)
        defer { stub.stop() }
        let fixture = try SignInFixture()
        let created = try fixture.daemon.admin([
            "connections", "create", "--name", "apple", "--strategy", "apple", "--client-id", stub.clientID, "--team-id", stub.teamID,
            "--key-id", stub.keyID, "--private-key-file", stub.privateKeyFile, "--authorize-url", stub.authorizeURL, "--token-url", stub.tokenURL,
            "--jwks-url", stub.jwksURL, "--revoke-url", stub.revokeURL, "--issuer", stub.issuer,
            "--native-audiences", stub.nativeClientIDs.joined(separator: ","), "--json",
        ])
        #expect(created.status == 0, "\(created.stderr)")
        let shown = try Self.json(created.stdout)
        // idp-admin runs without the daemon's IDP_ISSUER here, so only the path is compared.
        #expect((shown["apple_notifications_url"] as? String)?.hasSuffix("/login/apple/notifications") == true, "\(created.stdout)")
        let userID = try fixture.createUser()

        // What the browser flow and the token exchange do after an Apple code redemption: link and keep the token.
        var settings = Settings()
        settings.database = fixture.daemon.directory.file("data/idp.sqlite3")
        let store = try Store(path: settings.database)
        defer { store.close() }
        let tokenKey = try KeyManager.open(store: store, settings: settings).derivedKey(purpose: UpstreamTokenKey.purpose)
        try SQLiteIdentityStore(store: store).link(Identity(connection: "apple", subject: Self.subject, userID: userID, createdAt: Date()))
        let tokens = SQLiteUpstreamTokenStore(store: store, key: tokenKey)
        try tokens.setRefreshToken(UpstreamRefreshToken(token: "r-daemon-apple-token", clientID: stub.clientID), connection: "apple",
                                   subject: Self.subject, at: Date())

        // Apple's server-to-server notifications, sent by the stand-in over HTTP.
        let url = fixture.issuer + "login/apple/notifications"
        let disabled = try stub.notify(url: url, event: .emailDisabled, subject: Self.subject, email: "x@privaterelay.appleid.com")
        #expect(disabled.status == 200, "\(disabled.body)")
        #expect(try tokens.emailForwarding(connection: "apple", subject: Self.subject) == false)
        let forged = try stub.notify(url: url, event: .emailEnabled, subject: Self.subject, forged: true)
        #expect(forged.status == 400)
        #expect(try tokens.emailForwarding(connection: "apple", subject: Self.subject) == false)

        // The operator deletes Alice; the daemon revokes her Apple token in the background.
        let deleted = try fixture.daemon.admin(["users", "delete", userID, "--yes", "--json"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(try Self.json(deleted.stdout)["upstream_revocations_queued"] as? Int == 1)
        var revocations: [AppleGoogleStub.Revocation] = []
        let deadline = Date().addingTimeInterval(15)
        while revocations.isEmpty, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            revocations = try stub.revocations()
        }
        let revoked = try #require(revocations.first, "the daemon never revoked: \(fixture.daemon.standardError)")
        #expect(revoked.token == "r-daemon-apple-token" && revoked.clientID == stub.clientID && revoked.tokenTypeHint == "refresh_token")
        #expect(revoked.clientSecretClaims["sub"] == stub.clientID && revoked.clientSecretClaims["iss"] == stub.teamID)
        var listed = ""
        func status() throws -> String? {
            listed = try fixture.daemon.admin(["connections", "revocations", "--json"]).stdout
            let rows = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]]
            return rows?.first?["status"] as? String
        }
        while try status() != "done", Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(try status() == "done", "\(listed)")
        #expect(!listed.contains("r-daemon-apple-token"))
        #expect(fixture.daemon.standardError.contains("upstream_token_revoked"))
    }
}
