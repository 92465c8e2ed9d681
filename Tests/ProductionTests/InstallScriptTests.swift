import Foundation
import Testing
import TestSupport

/// `scripts/install` into a staging directory (DESTDIR), then idp-admin from that layout as a newcomer runs it.
@Suite struct InstallScriptTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func installsTheLayoutAndTheInstalledAdminUsesItsDatabase() throws {
        let staging = try TemporaryDirectory("idp-install")
        let process = Process()
        process.executableURL = Self.root.appendingPathComponent("scripts/install")
        process.environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DESTDIR": staging.path, "BUILD_DIR": Daemon.binaryDirectory.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")

        for file in ["usr/local/bin/idp", "usr/local/bin/idp-admin"] {
            #expect(FileManager.default.isExecutableFile(atPath: staging.file(file)), "\(file)")
        }
        #expect(FileManager.default.fileExists(atPath: staging.file("etc/systemd/system/gatehouse.service")))
        let mode = try FileManager.default.attributesOfItem(atPath: staging.file("var/lib/gatehouse"))[.posixPermissions] as? Int
        #expect(mode == 0o700)
        let config = try String(contentsOfFile: staging.file("etc/gatehouse/idp.conf"), encoding: .utf8)
        #expect(config.contains("database = /var/lib/gatehouse/idp.sqlite3"))

        // The staged file, with its database moved under the staging directory, as /etc/gatehouse/idp.conf would be read.
        let staged = config.replacingOccurrences(of: "database = /var/lib", with: "database = \(staging.path)/var/lib")
        try staged.write(toFile: staging.file("etc/gatehouse/idp.conf"), atomically: true, encoding: .utf8)
        let admin = staging.file("usr/local/bin/idp-admin")
        func run(_ words: [String]) throws -> (Int32, String) {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: admin)
            child.arguments = words
            child.currentDirectoryURL = URL(fileURLWithPath: "/")
            child.environment = ["PATH": "/usr/bin:/bin", "IDP_CONFIG": staging.file("etc/gatehouse/idp.conf")]
            let pipe = Pipe()
            child.standardOutput = pipe
            child.standardError = pipe
            try child.run()
            let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            return (child.terminationStatus, out)
        }
        let before = try run(["apps", "list"])
        #expect(before.0 == 1 && before.1.contains("set by `database` in \(staging.file("etc/gatehouse/idp.conf"))"), "\(before.1)")
        #expect(try run(["db", "init"]).0 == 0)
        #expect(try run(["apps", "list"]) == (0, "(none)\n"))
        // Installing again keeps the operator's settings.
        let again = Process()
        again.executableURL = process.executableURL
        again.environment = process.environment
        again.standardOutput = Pipe()
        try again.run()
        again.waitUntilExit()
        #expect(try String(contentsOfFile: staging.file("etc/gatehouse/idp.conf"), encoding: .utf8) == staged)
    }
}
