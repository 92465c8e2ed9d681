import Foundation
import Testing
import TestSupport

/// Moving a deployment with `idp-admin db copy`: what the SQLite daemon issued keeps working on
/// the PostgreSQL copy — the refresh token, the browser session and the signing key (same kid).
@Suite(.enabled(if: !PostgresCluster.isSkipped, "IDP_TEST_SKIP_POSTGRES=1")) struct DatabaseCopyDaemonTests {
    static func kid(of jwt: String) throws -> String? {
        var base64 = String(jwt.split(separator: ".")[0]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let header = try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: base64))) as? [String: Any]
        return header?["kid"] as? String
    }

    @Test func aDaemonOnTheCopyRefreshesWhatTheSQLiteDaemonIssued() throws {
        let cluster = try PostgresCluster.shared()
        let directory = try TemporaryDirectory("db-copy-daemon")
        let common = ["IDP_KEY_ENCRYPTION_KEY_FILE": directory.file("idp.kek")]
        let sqlite = common.merging(["IDP_DATABASE": directory.file("idp.sqlite3")]) { $1 }
        let before = try SignInFixture(environment: sqlite, adminEnvironment: sqlite, directory: directory)
        let app = try before.createApp()
        _ = try before.createUser()
        let browser = Browser(directory: directory)
        let callback = try before.signIn(browser, clientID: app.clientID, extra: [("scope", "openid profile email offline_access")])
        let code = try #require(queryParameters(of: callback)["code"])
        let redeemed = try before.redeem(code: code, clientID: app.clientID)
        #expect(redeemed.status == 200, "\(redeemed.text)")
        let tokens = try redeemed.json()
        let refreshToken = try #require(tokens["refresh_token"] as? String)
        let firstIDToken = try #require(tokens["id_token"] as? String)
        let kid = try #require(try Self.kid(of: firstIDToken))
        #expect(before.daemon.stop() == 0)

        let passwordFile = directory.file("database-password")
        try Data((cluster.password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
        let url = cluster.url(database: try cluster.makeDatabase())
        let copied = try before.admin(["db", "copy", "--to", url, "--password-file", passwordFile])
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(copied.stdout.contains("row counts verified"), "\(copied.stdout)")

        let postgres = common.merging(["IDP_DATABASE": url, "IDP_DATABASE_PASSWORD_FILE": passwordFile]) { $1 }
        let after = try SignInFixture(environment: postgres, adminEnvironment: postgres, directory: directory)
        defer { after.daemon.stop() }
        let refreshed = try Browser(directory: directory).post(after.issuer + "oauth/token", json: [
            "grant_type": "refresh_token", "client_id": app.clientID, "refresh_token": refreshToken,
        ])
        #expect(refreshed.status == 200, "\(refreshed.text)")
        let idToken = try #require(try refreshed.json()["id_token"] as? String)
        #expect(try Self.kid(of: idToken) == kid)
        let jwks = try Curl.get(after.issuer + ".well-known/jwks.json").json()
        let kids = ((jwks["keys"] as? [[String: Any]]) ?? []).compactMap { $0["kid"] as? String }
        #expect(kids.contains(kid))
        // The browser's session came along: a silent authorize gets a code without a login.
        let silent = try browser.get(after.authorizeURL(clientID: app.clientID, extra: [("prompt", "none")]))
        let location = try #require(silent.headers["location"])
        #expect(queryParameters(of: location)["code"] != nil, "\(location)")
    }
}
