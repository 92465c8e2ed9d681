import Foundation
import Testing
import TestSupport

/// K10: restoring a backup taken before some refresh tokens were issued. The daemon starts on
/// the restored file with its signing keys, the newer tokens are refused cleanly (the exact
/// `invalid_grant` answer, no 500), and sign-in works as before.
@Suite struct BackupRestoreTests {
    @Test func tokensNewerThanARestoredBackupAreRefusedCleanly() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        let keysBefore = try Curl.get(fixture.issuer + ".well-known/jwks.json").json()["keys"] as? [[String: String]]
        let backup = fixture.daemon.directory.file("backup.sqlite3")
        let backedUp = try fixture.daemon.admin(["db", "backup", backup])
        #expect(backedUp.status == 0, "\(backedUp.stderr)")

        // A refresh token issued after the backup.
        let callback = try fixture.signIn(Browser(directory: fixture.daemon.directory), clientID: app.clientID,
                                          extra: [("scope", "openid profile email offline_access")])
        let token = try fixture.redeem(code: try #require(queryParameters(of: callback)["code"]), clientID: app.clientID)
        let refreshToken = try #require(try token.json()["refresh_token"] as? String)
        #expect(fixture.daemon.stop() == 0)

        // Restore: the backup replaces the database; its write-ahead log goes with the old file.
        let database = fixture.daemon.directory.file("data/idp.sqlite3")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
        try FileManager.default.copyItem(atPath: backup, toPath: database)
        let port = try #require(URLComponents(string: fixture.issuer)?.port)
        let restored = try Daemon(environment: ["IDP_LISTEN": "127.0.0.1:\(port)", "IDP_ISSUER": fixture.issuer],
                                  directory: fixture.daemon.directory)
        defer { restored.stop() }

        #expect(try Curl.get(fixture.issuer + ".well-known/jwks.json").json()["keys"] as? [[String: String]] == keysBefore)
        let refused = try Browser(directory: fixture.daemon.directory).post(fixture.issuer + "oauth/token", json: [
            "grant_type": "refresh_token", "client_id": app.clientID, "refresh_token": refreshToken,
        ])
        #expect(refused.status == 400)
        #expect(refused.text == #"{"error":"invalid_grant","error_description":"Unknown or invalid refresh token."}"#)
        let again = try fixture.signIn(Browser(directory: fixture.daemon.directory), clientID: app.clientID)
        #expect(queryParameters(of: again)["code"] != nil)
    }
}
