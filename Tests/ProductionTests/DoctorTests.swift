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
