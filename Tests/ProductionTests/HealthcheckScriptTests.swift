import Foundation
import Testing
import TestSupport

/// `scripts/healthcheck`, the Docker image's HEALTHCHECK: it probes the listener the configuration
/// names (admin listener, unix socket, TCP), so a unix-socket deployment is not reported unhealthy.
@Suite struct HealthcheckScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/healthcheck").path

    func probe(_ environment: [String: String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.script)
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func aUnixSocketListenerIsProbedOverItsSocketOrTheAdminListener() throws {
        let directory = try TemporaryDirectory("idp-health")
        let socket = directory.file("idp.sock")
        let adminPort = Daemon.freePort()
        let environment = ["IDP_LISTEN": "unix:\(socket)", "IDP_ISSUER": "https://id.example.com/",
                           "IDP_ADMIN_LISTEN": "127.0.0.1:\(adminPort)"]
        let daemon = try Daemon(environment: environment, directory: directory, waitForBanner: false)
        defer { _ = daemon.stop() }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(try probe(environment) == 0)
        #expect(try probe(["IDP_LISTEN": "unix:\(socket)"]) == 0)
        // The old probe's target: nothing listens on 127.0.0.1:8080 here.
        #expect(try probe(["IDP_LISTEN": "127.0.0.1:\(Daemon.freePort())"]) != 0)
        #expect(try probe(["GATEHOUSE_HEALTH_URL": "http://127.0.0.1:\(adminPort)/healthz"]) == 0)
    }
}
