import Foundation
import Testing
import TestSupport

/// `idp-admin` changes made while the daemon runs take effect at once, without a restart
/// (negative-tests L04), and cut off what users and apps held (D08).
@Suite struct AdminEffectsTests {
    static let callback = "com.example.app://127.0.0.1/ios/com.example.app/callback"
    static let added = "com.example.app://127.0.0.1/ios/com.example.app/callback2"

    private func admin(_ fixture: SignInFixture, _ words: [String], input: String = "") throws -> String {
        let result = try fixture.daemon.admin(words, input: input)
        #expect(result.status == 0, "\(words): \(result.stderr)")
        return result.stdout
    }

    /// Signs in and redeems the code; returns the token response.
    private func tokens(_ fixture: SignInFixture, clientID: String, browser: Browser? = nil) throws -> [String: Any] {
        let browser = browser ?? Browser(directory: fixture.daemon.directory)
        let code = try #require(queryParameters(of: try fixture.signIn(browser, clientID: clientID))["code"])
        let response = try fixture.redeem(code: code, clientID: clientID)
        #expect(response.status == 200, "\(response.text)")
        return try response.json()
    }

    /// A code issued through the browser's live session (SSO), not yet redeemed.
    private func pendingCode(_ fixture: SignInFixture, _ browser: Browser, clientID: String) throws -> String {
        let sso = try browser.get(fixture.authorizeURL(clientID: clientID))
        #expect(sso.status == 302)
        let location = try #require(sso.headers["location"])
        return try #require(queryParameters(of: location)["code"])
    }

    private func userinfoStatus(_ fixture: SignInFixture, _ accessToken: String) throws -> Int {
        try Curl.get(fixture.issuer + "userinfo", ["-H", "Authorization: Bearer \(accessToken)"]).status
    }

    /// L04: a callback added with `apps update` is accepted by the running daemon at once; removed, refused at once.
    @Test func callbackChangesAreVisibleWithoutARestart() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        let browser = Browser(directory: fixture.daemon.directory)
        #expect(try browser.get(fixture.authorizeURL(clientID: app.clientID, redirectURI: Self.added)).status == 400)

        _ = try admin(fixture, ["apps", "update", app.clientID, "--callbacks", "\(Self.callback),\(Self.added)"])
        #expect(try browser.get(fixture.authorizeURL(clientID: app.clientID, redirectURI: Self.added)).status == 200)

        _ = try admin(fixture, ["apps", "update", app.clientID, "--callbacks", Self.callback])
        #expect(try browser.get(fixture.authorizeURL(clientID: app.clientID, redirectURI: Self.added)).status == 400)
        #expect(try browser.get(fixture.authorizeURL(clientID: app.clientID)).status == 200)
    }

    /// D08: a deleted app's pending code and tokens stop working; its /authorize is refused.
    @Test func deletingAnAppEndsItsCodesAndTokens() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        let browser = Browser(directory: fixture.daemon.directory)
        let issued = try tokens(fixture, clientID: app.clientID, browser: browser)
        let accessToken = try #require(issued["access_token"] as? String)
        let pending = try pendingCode(fixture, browser, clientID: app.clientID)
        #expect(try userinfoStatus(fixture, accessToken) == 200)

        _ = try admin(fixture, ["apps", "delete", app.clientID])
        #expect(try userinfoStatus(fixture, accessToken) == 401)
        let redeemed = try fixture.redeem(code: pending, clientID: app.clientID)
        #expect(redeemed.status == 400 || redeemed.status == 401, "\(redeemed.text)")
        #expect(try browser.get(fixture.authorizeURL(clientID: app.clientID)).status == 400)
    }

    /// L01 through the token endpoint: after `apps rotate-secret` the old secret is refused and the new one works.
    @Test func aRotatedSecretReplacesTheOldOneAtOnce() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp("regular", callbacks: ["https://app.example.com/callback"])
        let oldSecret = try #require(app.secret)
        try fixture.createUser()
        let rotated = try admin(fixture, ["apps", "rotate-secret", app.clientID, "--json"])
        let newSecret = try #require(try JSONSerialization.jsonObject(with: Data(rotated.utf8)) as? [String: String])["client_secret"]

        let browser = Browser(directory: fixture.daemon.directory)
        let page = try browser.get(fixture.authorizeURL(clientID: app.clientID, redirectURI: "https://app.example.com/callback"))
        #expect(page.status == 200)
        let posted = try fixture.submitLogin(browser, page: page)
        let continuation = try #require(posted.headers["location"])
        let resumed = try browser.get(continuation)
        let location = try #require(resumed.headers["location"])
        let code = try #require(queryParameters(of: location)["code"])
        func redeem(_ secret: String) throws -> Curl.Response {
            try Browser(directory: fixture.daemon.directory).post(fixture.issuer + "oauth/token", json: [
                "grant_type": "authorization_code", "client_id": app.clientID, "client_secret": secret, "code": code,
                "code_verifier": SignInFixture.verifier, "redirect_uri": "https://app.example.com/callback",
            ])
        }
        let old = try redeem(oldSecret)
        #expect(old.status == 401, "\(old.text)")
        #expect(try old.json()["error"] as? String == "invalid_client")
        let new = try redeem(try #require(newSecret))
        #expect(new.status == 200, "\(new.text)")
    }

    /// D08: blocking refuses the login form, kills a pending code and the access tokens issued before.
    @Test func blockingAUserCutsOffEverythingAtOnce() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        let browser = Browser(directory: fixture.daemon.directory)
        let accessToken = try #require(try tokens(fixture, clientID: app.clientID, browser: browser)["access_token"] as? String)
        let pending = try pendingCode(fixture, browser, clientID: app.clientID)

        _ = try admin(fixture, ["users", "block", "alice@example.com"])
        #expect(try userinfoStatus(fixture, accessToken) == 401)
        let redeemed = try fixture.redeem(code: pending, clientID: app.clientID)
        #expect(redeemed.status == 400)
        #expect(try redeemed.json()["error"] as? String == "invalid_grant")
        // The session ended, so /authorize shows the form again, and the form refuses the blocked user.
        let fresh = Browser(directory: fixture.daemon.directory)
        let page = try fresh.get(fixture.authorizeURL(clientID: app.clientID))
        #expect(page.status == 200)
        #expect(try fixture.submitLogin(fresh, page: page).status == 401)
        #expect(try browser.get(fixture.authorizeURL(clientID: app.clientID, extra: [("prompt", "none")])).headers["location"]?.contains("error=login_required") == true)

        _ = try admin(fixture, ["users", "unblock", "alice@example.com"])
        let again = try fresh.get(fixture.authorizeURL(clientID: app.clientID))
        #expect(try fixture.submitLogin(fresh, page: again).status == 303)
    }

    /// D08: a new password revokes the grants and tokens issued before; only the new password signs in.
    @Test func setPasswordRevokesWhatWasIssuedBefore() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        let accessToken = try #require(try tokens(fixture, clientID: app.clientID)["access_token"] as? String)
        #expect(try userinfoStatus(fixture, accessToken) == 200)

        _ = try admin(fixture, ["users", "set-password", "alice@example.com", "--password-stdin"], input: "A brand new password 2\n")
        #expect(try userinfoStatus(fixture, accessToken) == 401)
        let browser = Browser(directory: fixture.daemon.directory)
        let page = try browser.get(fixture.authorizeURL(clientID: app.clientID))
        #expect(try fixture.submitLogin(browser, page: page).status == 401)
        let retry = try browser.get(fixture.authorizeURL(clientID: app.clientID))
        #expect(try fixture.submitLogin(browser, page: retry, password: "A brand new password 2").status == 303)
    }

    /// D08: a deleted user's tokens and pending code stop working.
    @Test func deletingAUserEndsTheirTokens() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        let browser = Browser(directory: fixture.daemon.directory)
        let accessToken = try #require(try tokens(fixture, clientID: app.clientID, browser: browser)["access_token"] as? String)
        let pending = try pendingCode(fixture, browser, clientID: app.clientID)
        _ = try admin(fixture, ["users", "delete", "alice@example.com"])
        #expect(try userinfoStatus(fixture, accessToken) == 401)
        let redeemed = try fixture.redeem(code: pending, clientID: app.clientID)
        #expect(redeemed.status == 400)
        #expect(try redeemed.json()["error"] as? String == "invalid_grant")
    }

    /// A user imported from Auth0 with a bcrypt hash signs in with the original password, and the
    /// stored hash moves to Argon2id.
    @Test func anImportedBcryptUserSignsInAndIsRehashed() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        let hash = try Self.bcrypt(SignInFixture.password)
        let file = fixture.daemon.directory.file("export.json")
        try Data(#"[{"email": "alice@example.com", "user_id": "5f7c8ec7c33c6c004bbafe82", "email_verified": true, "password_hash": "\#(hash)"}]"#.utf8)
            .write(to: URL(fileURLWithPath: file))
        let imported = try admin(fixture, ["users", "import", file, "--json"])
        #expect(imported.contains("\"imported\" : 1"))

        let body = try tokens(fixture, clientID: app.clientID)
        let idToken = try SignInFixture.claims(of: try #require(body["id_token"] as? String))
        #expect(idToken["sub"] as? String == "auth0|5f7c8ec7c33c6c004bbafe82")
        let stored = try fixture.daemon.admin(["users", "show", "alice@example.com", "--json"])
        #expect(stored.stdout.contains("\"logins_count\" : 1"))
        // The hash itself is never printed; read it from the database.
        let database = fixture.daemon.directory.file("data/idp.sqlite3")
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        sqlite.arguments = ["-c", "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT password_hash FROM users\").fetchone()[0])", database]
        let output = Pipe()
        sqlite.standardOutput = output
        try sqlite.run()
        let rehashed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        sqlite.waitUntilExit()
        #expect(rehashed.hasPrefix("$argon2id$"), "\(rehashed)")
    }

    static func bcrypt(_ password: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-W", "ignore", "-c",
                             "import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))", password]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
