import Foundation
import Testing
import TestSupport

/// `idp-admin doctor` against a real data directory.
@Suite struct DoctorTests {
    func doctor(_ arguments: [String], _ environment: [String: String], in directory: String) throws -> (Int32, [String: (String, String)], String) {
        let result = try AdminProcess.run(["doctor", "--json"] + arguments, environment: environment, directory: directory)
        let array = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: String]] ?? []
        var checks: [String: (String, String)] = [:]
        for entry in array { checks[entry["check"] ?? ""] = (entry["verdict"] ?? "", entry["message"] ?? "") }
        return (result.status, checks, result.stdout + result.stderr)
    }

    @Test func aHealthyInstallPassesAndDiscoveryMatches() throws {
        let environment = ["IDP_ISSUER": "https://id.example.com/"]
        let daemon = try Daemon(environment: environment)
        defer { daemon.stop() }
        let (status, checks, output) = try doctor(["--url", daemon.baseURL], environment, in: daemon.directory.path)
        #expect(status == 0, "\(output)")
        for name in ["config", "clock", "issuer", "database_permissions", "database_integrity", "migrations", "kek_permissions",
                     "signing_keys", "discovery"] {
            #expect(checks[name]?.0 == "ok", "\(name): \(checks[name] ?? ("missing", ""))")
        }
        let other = try doctor(["--url", daemon.baseURL], ["IDP_ISSUER": "https://other.example.com/"], in: daemon.directory.path)
        #expect(other.0 == 1)
        #expect(other.1["discovery"]?.0 == "fail")
    }

    @Test func findsTheUsualMistakes() throws {
        let daemon = try Daemon()
        daemon.stop()
        let directory = daemon.directory.path
        chmod(directory + "/data/idp.sqlite3.kek", 0o644)
        let environment = ["IDP_LISTEN": "unix:\(directory)/idp.sock", "IDP_ISSUER": "http://id.example.com/"]
        let (status, checks, output) = try doctor([], environment, in: directory)
        #expect(status == 1, "\(output)")
        #expect(checks["kek_permissions"]?.0 == "fail")
        #expect(checks["kek_permissions"]?.1.contains("chmod 600") == true)
        #expect(checks["issuer"]?.0 == "fail")
        #expect(checks["trusted_proxies"]?.0 == "warn")
        #expect(checks["signing_keys"]?.0 == "ok")
    }

    @Test func aMissingDatabaseFails() throws {
        let directory = try TemporaryDirectory("idp-doctor")
        let (status, checks, _) = try doctor([], [:], in: directory.path)
        #expect(status == 1)
        #expect(checks["database"]?.0 == "fail")
        #expect(!FileManager.default.fileExists(atPath: directory.file("data/idp.sqlite3")))  // Read-only: nothing created.
    }

    @Test func anInvalidConfigurationFails() throws {
        let directory = try TemporaryDirectory("idp-doctor")
        let (status, checks, _) = try doctor([], ["IDP_TRUSTED_PROXIES": "10.0.0.1/8"], in: directory.path)
        #expect(status == 1)
        #expect(checks["config"]?.0 == "fail")
        #expect(checks["config"]?.1.contains("trusted_proxies") == true)
    }
}

/// Issue #17: doctor finds the faults that made nginx answer 502 while every check said ok.
@Suite struct DoctorDeploymentTests {
    func doctor(_ arguments: [String], _ environment: [String: String], in directory: String) throws -> (Int32, [String: (String, String)], String) {
        let result = try AdminProcess.run(["doctor", "--json"] + arguments, environment: environment, directory: directory)
        let array = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: String]] ?? []
        var checks: [String: (String, String)] = [:]
        for entry in array { checks[entry["check"] ?? ""] = (entry["verdict"] ?? "", entry["message"] ?? "") }
        return (result.status, checks, result.stdout + result.stderr)
    }

    @Test func aUnixSocketIsConnectedToAndItsGroupNamed() throws {
        let directory = try TemporaryDirectory("idp-doctor-unix")
        let socket = directory.file("idp.sock")
        let environment = ["IDP_LISTEN": "unix:\(socket)", "IDP_ISSUER": "https://id.example.com/", "IDP_TRUSTED_PROXIES": "unix"]
        let daemon = try Daemon(environment: environment, directory: directory, waitForBanner: false)
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let (_, checks, output) = try doctor([], environment, in: directory.path)
        let unix = try #require(checks["unix_socket"], "\(output)")
        #expect(unix.0 == "ok", "\(unix)")
        #expect(unix.1.contains("mode 0660") && unix.1.contains("connected") && unix.1.contains("usermod -aG"), "\(unix.1)")
        #expect(checks["tls_proxy"] == nil)
        _ = daemon.stop()

        // The daemon is gone: the socket is missing or refuses, and doctor fails instead of saying ok.
        let (status, after, _) = try doctor([], environment, in: directory.path)
        #expect(status == 1)
        #expect(after["unix_socket"]?.0 == "fail", "\(after["unix_socket"] ?? ("missing", ""))")
    }

    @Test func anHTTPSIssuerWithoutTrustedProxiesIsFlagged() throws {
        let daemon = try Daemon(environment: ["IDP_ISSUER": "https://id.example.com/"])
        defer { daemon.stop() }
        let (_, checks, output) = try doctor([], ["IDP_ISSUER": "https://id.example.com/"], in: daemon.directory.path)
        #expect(checks["tls_proxy"]?.0 == "warn", "\(output)")
        #expect(checks["tls_proxy"]?.1.contains("trusted_proxies") == true)
        let trusted = try doctor([], ["IDP_ISSUER": "https://id.example.com/", "IDP_TRUSTED_PROXIES": "127.0.0.1"], in: daemon.directory.path)
        #expect(trusted.1["tls_proxy"] == nil)
    }

    @Test func urlFailuresNameTheirCauseAndResolveWorksBeforeDNS() throws {
        let port = Daemon.freePort()
        let issuer = "http://id.gatehouse.test:\(port)/"
        let environment = ["IDP_LISTEN": "127.0.0.1:\(port)", "IDP_ISSUER": issuer]
        let daemon = try Daemon(environment: environment)
        defer { daemon.stop() }
        let directory = daemon.directory.path
        let dns = try doctor(["--url", issuer], environment, in: directory)
        #expect(dns.1["discovery"]?.1.contains("DNS") == true, "\(dns.2)")
        let resolved = try doctor(["--url", issuer, "--resolve", "id.gatehouse.test:127.0.0.1"], environment, in: directory)
        #expect(resolved.1["discovery"]?.0 == "ok", "\(resolved.2)")
        let refused = try doctor(["--url", "http://127.0.0.1:\(Daemon.freePort())/"], environment, in: directory)
        #expect(refused.1["discovery"]?.1.contains("TCP: cannot connect") == true, "\(refused.2)")
        let missing = try doctor(["--url", "http://127.0.0.1:\(port)/nothing/"], environment, in: directory)
        #expect(missing.1["discovery"]?.1.contains("answered HTTP 404") == true, "\(missing.2)")
        let badResolve = try doctor(["--url", issuer, "--resolve", "other.test:127.0.0.1"], environment, in: directory)
        #expect(badResolve.1["discovery"]?.1.contains("expected HOST:IP") == true)
        let cacert = try doctor(["--url", "https://127.0.0.1:\(port)/", "--cacert", "/nonexistent/ca.pem"], environment, in: directory)
        #expect(cacert.1["discovery"]?.0 == "fail", "\(cacert.2)")
    }
}
