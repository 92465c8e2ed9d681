import Foundation
import Testing
import TestSupport

/// libcurl and libpq are opened only when something needs them (README "Memory and start"),
/// checked on the real binaries: what a running daemon has mapped (`/proc/PID/maps`), and what
/// an operator reads when a library is missing (a stand-in found first through LD_LIBRARY_PATH).
@Suite struct OnDemandLibraryTests {
    static func maps(_ daemon: Daemon) throws -> String {
        try mappedFiles(of: String(daemon.process.processIdentifier))
    }

    /// SMTP delivery configured, towards a port where nothing listens (nothing is sent at start).
    static func smtp() -> [String: String] {
        ["IDP_EMAIL_FROM": "no-reply@example.com", "IDP_SMTP_URL": "smtp://127.0.0.1:\(Daemon.freePort())"]
    }

    /// PostgreSQL settings that fail before any server is asked: libpq is what is missing.
    static func postgres(_ directory: TemporaryDirectory) -> [String: String] {
        ["IDP_DATABASE": "postgresql://gatehouse@127.0.0.1:1/gatehouse", "IDP_KEY_ENCRYPTION_KEY_FILE": directory.file("idp.kek")]
    }

    @Test func aSQLiteDaemonWithoutMailOrConnectionsMapsNeither() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        for path in [".well-known/openid-configuration", ".well-known/jwks.json", "healthz", "readyz",
                     "authorize?client_id=nobody&response_type=code&redirect_uri=https%3A%2F%2Fapp.example%2Fcb"] {
            #expect(try Curl.get(daemon.baseURL + "/" + path).status > 0)
        }
        let token = try Curl.get(daemon.baseURL + "/oauth/token", ["-d", "grant_type=client_credentials&client_id=nobody&client_secret=x"])
        #expect(token.status == 401)
        let maps = try Self.maps(daemon)
        #expect(maps.contains("libcrypto"), "the maps list the daemon's libraries")
        for library in ["libcurl", "libpq", "libgnutls", "libldap", "libgssapi"] {
            #expect(!maps.contains(library), "\(library) is mapped")
        }
    }

    @Test func withSMTPConfiguredLibcurlIsOpenedAtStart() throws {
        let daemon = try Daemon(environment: Self.smtp())
        defer { daemon.stop() }
        let maps = try Self.maps(daemon)
        #expect(maps.contains("/libcurl.so.4"))
        #expect(!maps.contains("libpq"))
    }

    @Test func withConnectionsConfiguredLibcurlIsOpenedAtStart() throws {
        let directory = try TemporaryDirectory("idp-lazy-connections")
        try Self.createConnection(in: directory)
        let daemon = try Daemon(directory: directory)
        defer { daemon.stop() }
        #expect(try Self.maps(daemon).contains("/libcurl.so.4"))
        #expect(daemon.events("upstream_library_unavailable").isEmpty)
    }

    /// An upstream connection made by idp-admin (no fetch: the endpoints are given, not discovered).
    static func createConnection(in directory: TemporaryDirectory) throws {
        let first = try Daemon(directory: directory)
        first.stop()
        let created = try first.admin(["connections", "create", "--name", "corp", "--strategy", "oidc", "--client-id", "gatehouse",
                                       "--client-secret-stdin", "--authorize-url", "https://idp.corp.example/authorize",
                                       "--token-url", "https://idp.corp.example/token", "--jwks-url", "https://idp.corp.example/jwks",
                                       "--issuer", "https://idp.corp.example/"], input: "secret\n")
        #expect(created.status == 0, "\(created.stderr)")
    }

    @Test func aMissingLibcurlStopsADaemonThatSendsMailOverSMTP() throws {
        let standIn = try LibraryStandIn(["libcurl.so.4"], .unloadable)
        let daemon = try Daemon(environment: Self.smtp().merging(standIn.environment) { $1 }, waitForBanner: false)
        #expect(daemon.waitForExit() == 1)
        #expect(daemon.standardError.contains("cannot set up email delivery: libcurl.so.4 cannot be loaded (install the Debian package libcurl4): "),
                "\(daemon.standardError)")
        #expect(daemon.standardError.contains("file too short"), "dlerror's own text is kept")
    }

    @Test func aLibcurlWithoutItsFunctionsIsASendErrorOfEmailTest() throws {
        let daemon = try Daemon(environment: Self.smtp())
        daemon.stop()
        let standIn = try LibraryStandIn(["libcurl.so.4"], .withoutTheFunctions)
        let sent = try AdminProcess.run(["email", "test", "ann@example.org", "--json"], environment: Self.smtp().merging(standIn.environment) { $1 },
                                        directory: daemon.directory.path)
        #expect(sent.status == 1)
        let result = try JSONSerialization.jsonObject(with: Data(sent.stdout.utf8)) as? [String: Any]
        #expect(result?["sent"] as? Bool == false)
        #expect((result?["error"] as? String)?.contains("libcurl.so.4 has no curl_global_init (install or upgrade the Debian package libcurl4)") == true,
                "\(sent.stdout) \(sent.stderr)")
    }

    @Test func aMissingLibcurlIsLoggedAtStartWhenConnectionsAreConfigured() throws {
        let directory = try TemporaryDirectory("idp-lazy-connections")
        try Self.createConnection(in: directory)
        let standIn = try LibraryStandIn(["libcurl.so.4"], .unloadable)
        let daemon = try Daemon(environment: standIn.environment, directory: directory)
        defer { daemon.stop() }
        // The line is on stderr, which is read as it comes: it may arrive after the banner.
        var logged: [String: Any]?
        eventually { logged = daemon.events("upstream_library_unavailable").first; return logged != nil }
        #expect((logged?["error"] as? String)?.contains("libcurl.so.4 cannot be loaded (install the Debian package libcurl4)") == true,
                "\(daemon.standardError)")
        // Password sign-in needs no libcurl: the daemon serves.
        #expect(try Curl.get(daemon.baseURL + "/.well-known/openid-configuration").status == 200)
    }

    @Test func aMissingLibpqIsAConfigurationErrorForTheDaemonAndIdpAdmin() throws {
        let directory = try TemporaryDirectory("idp-lazy-pq")
        let standIn = try LibraryStandIn(["libpq.so.5"], .withoutTheFunctions)
        let environment = Self.postgres(directory).merging(standIn.environment) { $1 }
        let started = Date()
        let daemon = try Daemon(environment: environment, directory: directory, waitForBanner: false)
        #expect(daemon.waitForExit() == 1)
        #expect(Date().timeIntervalSince(started) < 15, "not retried as an unreachable server")
        #expect(daemon.standardError.contains("cannot use the database postgresql://gatehouse@127.0.0.1:1/gatehouse: "), "\(daemon.standardError)")
        #expect(daemon.standardError.contains("libpq.so.5 has no PQconnectdbParams (install or upgrade the Debian package libpq5)"))
        for command in [["db", "status"], ["users", "list"]] {
            let result = try AdminProcess.run(command, environment: environment, directory: directory.path)
            #expect(result.status != 0 && result.status < 128, "\(command): exits with an error, not a crash")
            #expect(result.stderr.contains("libpq.so.5 has no PQconnectdbParams (install or upgrade the Debian package libpq5)"),
                    "\(command): \(result.stderr)")
        }
    }

    func doctor(_ environment: [String: String], in directory: String) throws -> [String: (verdict: String, message: String)] {
        let result = try AdminProcess.run(["doctor", "--json"], environment: environment, directory: directory)
        let rows = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: String]] ?? []
        var checks: [String: (verdict: String, message: String)] = [:]
        for row in rows { checks[row["check"] ?? ""] = (row["verdict"] ?? "", row["message"] ?? "") }
        return checks
    }

    @Test func doctorReportsWhetherEachLibraryLoads() throws {
        let daemon = try Daemon()
        daemon.stop()
        let directory = daemon.directory.path
        let installed = try doctor([:], in: directory)
        #expect(installed["libcurl"]?.verdict == "ok" && installed["libpq"]?.verdict == "ok", "\(installed)")

        let standIn = try LibraryStandIn(["libcurl.so.4", "libpq.so.5"], .unloadable)
        let unneeded = try doctor(standIn.environment, in: directory)
        #expect(unneeded["libcurl"]?.verdict == "warn")
        #expect(unneeded["libcurl"]?.message.contains("libcurl.so.4 cannot be loaded (install the Debian package libcurl4)") == true)
        #expect(unneeded["libpq"]?.verdict == "warn")
        #expect(unneeded["libpq"]?.message.contains("libpq.so.5 cannot be loaded (install the Debian package libpq5)") == true)

        let withSMTP = try doctor(Self.smtp().merging(standIn.environment) { $1 }, in: directory)
        #expect(withSMTP["libcurl"]?.verdict == "fail", "\(withSMTP)")
        let postgres = try TemporaryDirectory("idp-lazy-pq")
        let onPostgres = try doctor(Self.postgres(postgres).merging(standIn.environment) { $1 }, in: postgres.path)
        #expect(onPostgres["libpq"]?.verdict == "fail", "\(onPostgres)")
        #expect(onPostgres["database_connection"]?.message.contains("install the Debian package libpq5") == true, "\(onPostgres)")
    }
}
