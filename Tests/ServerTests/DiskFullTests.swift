import Foundation
import Storage
import Testing
import TestSupport

/// A real disk running full under a real daemon: the database on a 2 MiB tmpfs, filled to the
/// last block. Writes fail there (SQLITE_FULL) while reads still work, which is exactly what
/// `/readyz` used to miss.
@Suite(.serialized) struct DiskFullTests {
    static let canMount = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/mount")

    /// A tmpfs of `size` mounted on a fresh directory; `unmount()` (in a defer) takes it away.
    final class Tmpfs {
        let directory: TemporaryDirectory
        var path: String { directory.path }

        init(size: String) throws {
            directory = try TemporaryDirectory("tmpfs")
            let status = try Self.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", directory.path])
            guard status == 0 else { throw MountError(status: status) }
        }

        /// Writes zeros into `name` until the file system is full.
        func fill(_ name: String = "filler") throws {
            _ = try Self.run("/usr/bin/dd", ["if=/dev/zero", "of=\(path)/\(name)", "bs=4096"])
        }

        func free(_ name: String = "filler") throws { try FileManager.default.removeItem(atPath: "\(path)/\(name)") }

        func unmount() {
            if (try? Self.run("/usr/bin/umount", [path])) != 0 { _ = try? Self.run("/usr/bin/umount", ["-l", path]) }
        }

        @discardableResult
        static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    struct MountError: Error { let status: Int32 }

    private func refresh(_ fixture: SignInFixture, clientID: String, token: String) throws -> Curl.Response {
        try Browser(directory: fixture.daemon.directory).post(fixture.issuer + "oauth/token", json: [
            "grant_type": "refresh_token", "client_id": clientID, "refresh_token": token,
        ])
    }

    @Test(.enabled(if: canMount))
    func aFullDiskIsNotReadyAnswers503AndRecoversWhenSpaceReturns() throws {
        let disk = try Tmpfs(size: "2m")
        defer { disk.unmount() }
        let database = disk.path + "/idp.sqlite3"
        let fixture = try SignInFixture(environment: ["IDP_DATABASE": database])
        defer { fixture.daemon.stop() }
        // idp-admin (run in the daemon's directory) finds the same file through data/.
        try FileManager.default.createSymbolicLink(atPath: fixture.daemon.directory.file("data"), withDestinationPath: disk.path)
        let app = try fixture.createApp()
        try fixture.createUser()
        let callback = try fixture.signIn(Browser(directory: fixture.daemon.directory), clientID: app.clientID,
                                          extra: [("scope", "openid profile email offline_access")])
        let code = try #require(queryParameters(of: callback)["code"])
        var token = try #require(try fixture.redeem(code: code, clientID: app.clientID).json()["refresh_token"] as? String)
        #expect(try Curl.get(fixture.issuer + "readyz").status == 200)

        // Let the audit batch land, then empty the WAL so the next commit must grow it, and fill the disk.
        Thread.sleep(forTimeInterval: 0.5)
        let side = try Store(path: database, readers: 1)
        var truncated = false
        for _ in 0..<50 where !truncated {
            truncated = (try? side.checkpoint()) == true
            if !truncated { Thread.sleep(forTimeInterval: 0.05) }
        }
        side.close()
        #expect(truncated)
        try disk.fill()

        // A refresh needs a write: 503 temporarily_unavailable with Retry-After. (Should a commit still
        // fit in space the file already had, the next ones will not.)
        var refused: Curl.Response?
        var fitted = 0
        for _ in 0..<20 {
            let response = try refresh(fixture, clientID: app.clientID, token: token)
            if response.status == 200, let next = try response.json()["refresh_token"] as? String {
                token = next
                fitted += 1
                continue
            }
            refused = response
            break
        }
        let response = try #require(refused)
        #expect(response.status == 503, "\(response.text)")
        #expect(try response.json()["error"] as? String == "temporarily_unavailable")
        #expect(response.headers["retry-after"] != nil)
        let notReady = try Curl.get(fixture.issuer + "readyz")
        #expect(notReady.status == 503)
        #expect(notReady.text == #"{"status":"unavailable","reason":"database_writes"}"#)
        #expect(notReady.headers["retry-after"] == "1")
        // Reads still answer meanwhile: discovery and health.
        #expect(try Curl.get(fixture.issuer + "healthz").status == 200)

        // Space returns: readiness comes back by itself (hold-down, then a probe write), refreshes work,
        // and the token refused during the outage is still the live one.
        try disk.free()
        let freed = Date()
        let deadline = Date().addingTimeInterval(20)
        var ready = false
        while !ready, Date() < deadline {
            ready = try Curl.get(fixture.issuer + "readyz").status == 200
            if !ready { Thread.sleep(forTimeInterval: 0.25) }
        }
        #expect(ready, "readyz did not recover: \(fixture.daemon.standardError.suffix(2000))")
        print(String(format: "disk full: %d refreshes still fitted, then 503; ready again %.1f s after space returned",
                     fitted, Date().timeIntervalSince(freed)))
        let recovered = try refresh(fixture, clientID: app.clientID, token: token)
        #expect(recovered.status == 200, "\(recovered.text)")
        let check = try Store(path: database, readers: 1)
        defer { check.close() }
        #expect(try check.database.integrityCheck() == ["ok"])
    }
}
