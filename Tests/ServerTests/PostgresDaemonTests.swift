import Foundation
import Testing
import TestSupport

/// The real daemon and `idp-admin` on a real PostgreSQL cluster (README "PostgreSQL"): the same
/// flows as on SQLite, the password only ever from its file, and outages answered with 503 and
/// recovered from without a restart. `IDP_TEST_SKIP_POSTGRES=1` skips the suite.
@Suite(.serialized, .enabled(if: !PostgresCluster.isSkipped)) struct PostgresDaemonTests {
    /// The daemon's and idp-admin's settings for a fresh database on `cluster`.
    static func settings(_ cluster: PostgresCluster, in directory: TemporaryDirectory) throws -> [String: String] {
        let passwordFile = directory.file("database-password")
        try Data((cluster.password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
        return ["IDP_DATABASE": cluster.url(database: try cluster.makeDatabase()), "IDP_DATABASE_PASSWORD_FILE": passwordFile,
                "IDP_KEY_ENCRYPTION_KEY_FILE": directory.file("idp.kek"), "IDP_DATABASE_STATEMENT_TIMEOUT": "2s"]
    }

    static func fixture(_ cluster: PostgresCluster) throws -> SignInFixture {
        let directory = try TemporaryDirectory("idp-pg")
        let environment = try settings(cluster, in: directory)
        return try SignInFixture(environment: environment, adminEnvironment: environment, directory: directory)
    }

    static func refresh(_ fixture: SignInFixture, clientID: String, token: String) throws -> Curl.Response {
        try Browser(directory: fixture.daemon.directory).post(fixture.issuer + "oauth/token", json: [
            "grant_type": "refresh_token", "client_id": clientID, "refresh_token": token,
        ])
    }

    /// Signs in with offline_access through the browser and redeems the code; the token response.
    static func signIn(_ fixture: SignInFixture, clientID: String, browser: Browser) throws -> [String: Any] {
        let callback = try fixture.signIn(browser, clientID: clientID, extra: [("scope", "openid profile email offline_access")])
        let code = try #require(queryParameters(of: callback)["code"])
        let redeemed = try fixture.redeem(code: code, clientID: clientID)
        #expect(redeemed.status == 200, "\(redeemed.text)")
        return try redeemed.json()
    }

    @Test func discoverySignInRefreshRevocationAndLogoutWorkOnPostgreSQL() throws {
        let cluster = try PostgresCluster.shared()
        let fixture = try Self.fixture(cluster)
        defer { fixture.daemon.stop() }
        let metadata = try Curl.get(fixture.issuer + ".well-known/openid-configuration")
        #expect(metadata.status == 200)
        #expect(try metadata.json()["issuer"] as? String == fixture.issuer)
        let jwks = try Curl.get(fixture.issuer + ".well-known/jwks.json").json()
        #expect((jwks["keys"] as? [Any])?.count == 2)

        let app = try fixture.createApp()
        let userID = try fixture.createUser()
        let browser = Browser(directory: fixture.daemon.directory)
        let tokens = try Self.signIn(fixture, clientID: app.clientID, browser: browser)
        let idToken = try #require(tokens["id_token"] as? String)
        #expect(try SignInFixture.claims(of: idToken)["sub"] as? String == userID)
        let first = try #require(tokens["refresh_token"] as? String)

        // Rotation: the successor works, the old token is refused once rotated (outside the overlap window it revokes the family).
        let rotated = try Self.refresh(fixture, clientID: app.clientID, token: first)
        #expect(rotated.status == 200, "\(rotated.text)")
        let second = try #require(try rotated.json()["refresh_token"] as? String)
        #expect(second != first)
        let again = try Self.refresh(fixture, clientID: app.clientID, token: second)
        #expect(again.status == 200, "\(again.text)")
        let third = try #require(try again.json()["refresh_token"] as? String)

        // Revocation ends the family.
        let revoked = try browser.post(fixture.issuer + "oauth/revoke", json: ["token": third, "client_id": app.clientID])
        #expect(revoked.status == 200)
        let refused = try Self.refresh(fixture, clientID: app.clientID, token: third)
        #expect(refused.status == 403 || refused.status == 400)
        #expect(try refused.json()["error"] as? String == "invalid_grant")

        // Logout ends the browser session: a silent authorize then needs a login.
        let loggedOut = try browser.get(fixture.issuer + "v2/logout")
        #expect(loggedOut.status == 200 || loggedOut.status == 302)
        let silent = try browser.get(fixture.authorizeURL(clientID: app.clientID, extra: [("prompt", "none")]))
        #expect(queryParameters(of: try #require(silent.headers["location"]))["error"] == "login_required")

        #expect(try Curl.get(fixture.issuer + "readyz").status == 200)
        #expect(!fixture.daemon.standardError.contains(cluster.password))
    }

    @Test func idpAdminAppUserAndKeyCommandsWorkOnTheSameDatabase() throws {
        let cluster = try PostgresCluster.shared()
        let fixture = try Self.fixture(cluster)
        defer { fixture.daemon.stop() }
        let app = try fixture.createApp()
        let userID = try fixture.createUser("bob@example.com", name: "Bob")
        let apps = try fixture.admin(["apps", "list", "--json"])
        #expect(apps.status == 0, "\(apps.stderr)")
        #expect(apps.stdout.contains(app.clientID))
        let shown = try fixture.admin(["users", "show", userID, "--json"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("bob@example.com"))
        let blocked = try fixture.admin(["users", "block", userID])
        #expect(blocked.status == 0, "\(blocked.stderr)")

        let keys = try fixture.admin(["keys", "list", "--json"])
        #expect(keys.status == 0, "\(keys.stderr)")
        let rotated = try fixture.admin(["keys", "rotate", "--json"])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        // The daemon sees the rotation through the shared database (its key ring refreshes every 2 s).
        let before = try Curl.get(fixture.issuer + ".well-known/jwks.json").json()["keys"] as? [Any]
        var seen = before?.count ?? 0
        for _ in 0..<40 where seen <= 2 {
            Thread.sleep(forTimeInterval: 0.25)
            seen = (try Curl.get(fixture.issuer + ".well-known/jwks.json").json()["keys"] as? [Any])?.count ?? 0
        }
        #expect(seen > 2, "the JWKS should list the new keys beside the previous ones")

        let audit = try fixture.admin(["audit", "tail", "--json"])
        #expect(audit.status == 0, "\(audit.stderr)")
        #expect(audit.stdout.contains("user.blocked") || audit.stdout.contains("users.blocked") || audit.stdout.contains("block"))
        let stats = try fixture.admin(["db", "stats", "--json"])
        #expect(stats.status == 0, "\(stats.stderr)")
        let purge = try fixture.admin(["db", "purge", "--json"])
        #expect(purge.status == 0, "\(purge.stderr)")
        for output in [apps, shown, keys, rotated, audit, stats, purge] {
            #expect(!output.stdout.contains(cluster.password) && !output.stderr.contains(cluster.password))
        }
    }

    @Test func databaseCommandsAnswerForTheServersSchema() throws {
        let cluster = try PostgresCluster.shared()
        let directory = try TemporaryDirectory("idp-pg")
        // The password from the environment this time, not the file.
        var environment = try Self.settings(cluster, in: directory)
        environment["IDP_DATABASE_PASSWORD_FILE"] = nil
        environment["IDP_DATABASE_PASSWORD"] = cluster.password
        func admin(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            try AdminProcess.run(arguments, environment: environment, directory: directory.path)
        }
        let created = try admin(["db", "init", "--json"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("\"created\""))
        let again = try admin(["db", "init"])
        #expect(again.status != 0 && again.stderr.contains("already holds a Gatehouse schema"), "\(again.stderr)")
        let status = try admin(["db", "status", "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("0016_live_sessions_covering") && !status.stdout.contains("pending"))
        let migrated = try admin(["db", "migrate"])
        #expect(migrated.status == 0 && migrated.stdout.contains("up to date"), "\(migrated.stderr)")
        let checked = try admin(["db", "check"])
        #expect(checked.status == 0 && checked.stdout.contains("migrations ok"), "\(checked.stderr)")
        let vacuumed = try admin(["db", "vacuum"])
        #expect(vacuumed.status == 0, "\(vacuumed.stderr)")
        let backup = try admin(["db", "backup", directory.file("copy.sqlite3")])
        #expect(backup.status != 0 && backup.stderr.contains("pg_dump"), "\(backup.stderr)")
        for output in [created, status, checked, vacuumed] {
            #expect(!output.stdout.contains(cluster.password) && !output.stderr.contains(cluster.password))
        }
    }

    @Test func aDatabaseURLWithAPasswordIsRefusedAtConfigLoad() throws {
        let daemon = try Daemon(environment: ["IDP_DATABASE": "postgresql://gatehouse:hunter2-secret@127.0.0.1:1/gatehouse",
                                              "IDP_KEY_ENCRYPTION_KEY_FILE": "/tmp/unused.kek"], waitForBanner: false)
        let status = daemon.waitForExit()
        #expect(status != 0)
        #expect(daemon.standardError.contains("must not contain a password"), "\(daemon.standardError)")
        #expect(!daemon.standardError.contains("hunter2-secret"))
        let admin = try AdminProcess.run(["apps", "list"], environment: ["IDP_DATABASE": "postgres://u:hunter2-secret@localhost/db",
                                                                         "IDP_KEY_ENCRYPTION_KEY_FILE": "/tmp/unused.kek"],
                                         directory: daemon.directory.path)
        #expect(admin.status != 0)
        #expect(admin.stderr.contains("must not contain a password"), "\(admin.stderr)")
        #expect(!admin.stderr.contains("hunter2-secret"))
    }

    @Test func aPostgreSQLDatabaseNeedsAnExplicitKeyEncryptionKey() throws {
        let daemon = try Daemon(environment: ["IDP_DATABASE": "postgresql://gatehouse@127.0.0.1:1/gatehouse"], waitForBanner: false)
        #expect(daemon.waitForExit() != 0)
        #expect(daemon.standardError.contains("key_encryption_key_file"), "\(daemon.standardError)")
    }

    /// Started before the server is up, the daemon waits for it; stopped under it, /readyz says
    /// not ready and requests get 503 temporarily_unavailable with Retry-After; started again,
    /// the pool reconnects and the same tokens work, with no restart of the daemon.
    @Test func theDaemonWaitsForPostgreSQLAndRecoversAfterAnOutage() throws {
        let cluster = try PostgresCluster.dedicated()
        defer { cluster.stop() }
        let directory = try TemporaryDirectory("idp-pg")
        let environment = try Self.settings(cluster, in: directory)
        try cluster.stopServer()
        let starter = Thread { Thread.sleep(forTimeInterval: 2); try? cluster.startServer() }
        starter.start()
        let fixture = try SignInFixture(environment: environment, adminEnvironment: environment, directory: directory)
        defer { fixture.daemon.stop() }
        #expect(fixture.daemon.standardError.contains("database_unreachable"))

        let app = try fixture.createApp()
        try fixture.createUser()
        let tokens = try Self.signIn(fixture, clientID: app.clientID, browser: Browser(directory: directory))
        var token = try #require(tokens["refresh_token"] as? String)
        #expect(try Curl.get(fixture.issuer + "readyz").status == 200)

        try cluster.stopServer()
        let notReady = try Curl.get(fixture.issuer + "readyz")
        #expect(notReady.status == 503)
        #expect(notReady.headers["retry-after"] != nil)
        let during = try Self.refresh(fixture, clientID: app.clientID, token: token)
        #expect(during.status == 503, "\(during.text)")
        #expect(try during.json()["error"] as? String == "temporarily_unavailable")
        #expect(during.headers["retry-after"] != nil)

        try cluster.startServer()
        var ready = 0
        for _ in 0..<40 where ready != 200 {
            ready = try Curl.get(fixture.issuer + "readyz").status
            if ready != 200 { Thread.sleep(forTimeInterval: 0.25) }
        }
        #expect(ready == 200)
        let after = try Self.refresh(fixture, clientID: app.clientID, token: token)
        #expect(after.status == 200, "\(after.text)")
        token = try #require(try after.json()["refresh_token"] as? String)
        #expect(!token.isEmpty)
        #expect(!fixture.daemon.standardError.contains(cluster.password))
    }

    @Test func aServerThatNeverComesUpEndsStartupWithAClearMessage() throws {
        let directory = try TemporaryDirectory("idp-pg")
        let passwordFile = directory.file("database-password")
        try Data("pw\n".utf8).write(to: URL(fileURLWithPath: passwordFile))
        let clock = ContinuousClock()
        let started = clock.now
        let daemon = try Daemon(environment: ["IDP_DATABASE": "postgresql://gatehouse@127.0.0.1:\(Daemon.freePort())/gatehouse?sslmode=disable",
                                              "IDP_DATABASE_PASSWORD_FILE": passwordFile, "IDP_KEY_ENCRYPTION_KEY_FILE": directory.file("kek")],
                                directory: directory, waitForBanner: false)
        #expect(daemon.waitForExit() != 0)
        let elapsed = clock.now - started
        #expect(elapsed >= .seconds(20) && elapsed < .seconds(60), "\(elapsed)")
        #expect(daemon.standardError.contains("database_unreachable"))
        #expect(daemon.standardError.contains("cannot use the database postgresql://gatehouse@127.0.0.1"), "\(daemon.standardError)")
    }
}
