import Foundation
import Testing
import TestSupport

/// The real `idp` binary: startup, configuration errors, database failures, shutdown.
@Suite struct DaemonStartupTests {
    @Test func startsWithoutConfigurationCreatingItsDataDirectoryAndServes() throws {
        let daemon = try Daemon(environment: ["IDP_ISSUER": ""].filter { !$0.value.isEmpty })
        let health = try Curl.get(daemon.baseURL + "/healthz")
        #expect(health.status == 200)
        #expect(health.text == #"{"status":"ok"}"#)
        #expect(try Curl.get(daemon.baseURL + "/readyz").status == 200)
        let data = daemon.directory.file("data")
        for file in ["idp.sqlite3", "idp.sqlite3.kek"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: data + "/" + file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(file) is not private")
        }
        #expect(daemon.stop() == 0)
        #expect(daemon.standardError.contains(#""event":"stopped""#))
    }

    @Test func theIssuerDefaultsToTheListenAddress() throws {
        let daemon = try Daemon(environment: ["IDP_LISTEN": "127.0.0.1:0", "IDP_ISSUER": "http://127.0.0.1:0/"])
        let discovery = try Curl.get(daemon.baseURL + "/.well-known/openid-configuration").json()
        #expect(discovery["issuer"] as? String == "http://127.0.0.1:0/")
    }

    @Test func aBadConfigFileStopsStartupWith78NamingFileLineAndKey() throws {
        let directory = try TemporaryDirectory("idp")
        let config = directory.file("idp.conf")
        try "log_level = info\nmax_connections = lots\nlissten = 127.0.0.1:1\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try Daemon(arguments: ["--config", config], directory: directory, waitForBanner: false)
        #expect(daemon.waitForExit() == 78)
        #expect(daemon.standardError.contains("\(config):2: max_connections: expected a whole number"))
        #expect(daemon.standardError.contains("\(config):3: lissten: unknown key (did you mean listen?)"))
    }

    @Test func aBadEnvironmentValueStopsStartupWith78() throws {
        let daemon = try Daemon(environment: ["IDP_ISSUER": "https://id.example.com"], waitForBanner: false)
        #expect(daemon.waitForExit() == 78)
        #expect(daemon.standardError.contains("IDP_ISSUER: issuer: expected an absolute http or https URL ending in /"))
    }

    @Test func anUnknownIDPVariableIsAWarningNamingIt() throws {
        let daemon = try Daemon(environment: ["IDP_LOG_LEVLE": "debug"])
        #expect(try Curl.get(daemon.baseURL + "/healthz").status == 200)
        #expect(daemon.standardError.contains("unknown environment variable IDP_LOG_LEVLE ignored"))
        daemon.stop()
    }

    @Test func unknownCommandLineArgumentsExit2() throws {
        let daemon = try Daemon(arguments: ["--confg", "x"], waitForBanner: false)
        #expect(daemon.waitForExit() == 2)
        #expect(daemon.standardError.contains("did you mean --config?"))
    }

    @Test func anUnusableDatabaseExits1WithTheCause() throws {
        let directory = try TemporaryDirectory("idp")
        try FileManager.default.createDirectory(atPath: directory.file("db-is-a-directory"), withIntermediateDirectories: true)
        let daemon = try Daemon(environment: ["IDP_DATABASE": directory.file("db-is-a-directory")], directory: directory, waitForBanner: false)
        #expect(daemon.waitForExit() == 1)
        #expect(daemon.standardError.contains("cannot use the database"))
    }

    @Test func aChangedAppliedMigrationIsRefusedAtStartup() throws {
        let first = try Daemon()
        #expect(first.stop() == 0)
        let database = first.directory.file("data/idp.sqlite3")
        try sqlite(database, "UPDATE schema_migrations SET checksum = 'f00d' WHERE version = 1")
        let second = try Daemon(directory: first.directory, waitForBanner: false)
        #expect(second.waitForExit() == 1)
        #expect(second.standardError.contains("migration 0001_initial was changed after it was applied"))
    }

    @Test func aSchemaNewerThanTheBinaryIsRefusedAtStartup() throws {
        let first = try Daemon()
        #expect(first.stop() == 0)
        try sqlite(first.directory.file("data/idp.sqlite3"),
                   "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (99, 'future', 'x', '2030-01-01')")
        let second = try Daemon(directory: first.directory, waitForBanner: false)
        #expect(second.waitForExit() == 1)
        #expect(second.standardError.contains("newer than this binary"))
    }

    @Test func aWrongKeyEncryptionKeyIsRefusedAndTheKeysAreKept() throws {
        let first = try Daemon()
        #expect(first.stop() == 0)
        let database = first.directory.file("data/idp.sqlite3")
        let before = try sqlite(database, "SELECT kid FROM signing_keys ORDER BY kid")
        let wrong = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        let second = try Daemon(environment: ["IDP_KEY_ENCRYPTION_KEY": wrong], directory: first.directory, waitForBanner: false)
        #expect(second.waitForExit() == 1)
        #expect(second.standardError.contains("does not decrypt signing key"))
        #expect(try sqlite(database, "SELECT kid FROM signing_keys ORDER BY kid") == before)
    }

    @Test func sigintAlsoShutsDownCleanly() throws {
        let daemon = try Daemon()
        #expect(daemon.stop(signal: SIGINT) == 0)
        #expect(daemon.standardError.contains(#""signal":"SIGINT""#))
    }

    @discardableResult
    private func sqlite(_ database: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [database, sql]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self)
    }
}
