import Foundation
import Testing
import Logging
@testable import Settings

@Suite struct SettingsLoaderTests {
    private func writeConfig(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("idp-\(UUID().uuidString).conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func zeroConfigurationGivesTheEmbeddedDefaults() throws {
        let loaded = try SettingsLoader.load(configPath: nil, environment: [:])
        #expect(loaded.settings.listen == .tcp(host: "127.0.0.1", port: 8080))
        #expect(loaded.settings.issuer.url == "http://127.0.0.1:8080/")
        #expect(loaded.settings.database == "data/idp.sqlite3")
        #expect(loaded.settings.logLevel == .info)
        #expect(loaded.settings.maxHeaderBytes == 16_384)
        #expect(loaded.settings.maxBodyBytes == 1_048_576)
        #expect(loaded.settings.headerTimeout == .seconds(10))
        #expect(loaded.settings.idleTimeout == .seconds(60))
    }

    @Test func fileValuesApplyAndEnvironmentOverridesThem() throws {
        let path = try writeConfig("""
            listen = 127.0.0.1:9100
            issuer = https://id.example.com/auth/
            log_level = warning
            max_body_bytes = 64KiB
            header_timeout = 1500ms
            """)
        let loaded = try SettingsLoader.load(configPath: path, environment: ["IDP_LOG_LEVEL": "debug", "IDP_MAX_CONNECTIONS": "12"])
        #expect(loaded.settings.listen == .tcp(host: "127.0.0.1", port: 9100))
        #expect(loaded.settings.issuer.path == "/auth/")
        #expect(loaded.settings.issuer.isHTTPS)
        #expect(loaded.settings.logLevel == .debug)
        #expect(loaded.settings.maxBodyBytes == 65_536)
        #expect(loaded.settings.headerTimeout == .milliseconds(1500))
        #expect(loaded.settings.maxConnections == 12)
        #expect(loaded.sources["log_level"] == .environment("IDP_LOG_LEVEL"))
        #expect(loaded.sources["listen"] == .file(path, line: 1))
    }

    @Test func theIssuerFollowsACustomListenAddressWhenUnset() throws {
        let loaded = try SettingsLoader.load(configPath: nil, environment: ["IDP_LISTEN": "[::1]:9200"])
        #expect(loaded.settings.issuer.url == "http://[::1]:9200/")
    }

    @Test func aUnixListenerNeedsAnIssuer() {
        #expect(throws: ConfigurationError.self) {
            try SettingsLoader.load(configPath: nil, environment: ["IDP_LISTEN": "unix:/run/idp.sock"])
        }
    }

    @Test func everyProblemIsReportedWithFileLineAndKey() throws {
        let path = try writeConfig("""
            listen = nowhere
            lissten = 127.0.0.1:1
            log_level = loud
            max_connections = +5
            """)
        do {
            _ = try SettingsLoader.load(configPath: path, environment: [:])
            Issue.record("expected a configuration error")
        } catch let error as ConfigurationError {
            let lines = error.problems.map(\.description)
            #expect(lines.count == 4)
            #expect(lines.contains { $0.hasPrefix("\(path):1: listen: expected host:port") })
            #expect(lines.contains("\(path):2: lissten: unknown key (did you mean listen?)"))
            #expect(lines.contains { $0.hasPrefix("\(path):3: log_level: expected one of debug, info, warning, error") })
            #expect(lines.contains { $0.hasPrefix("\(path):4: max_connections: expected a whole number") })
        }
    }

    @Test func anUnreadableFileIsAConfigurationError() {
        #expect(throws: ConfigurationError.self) {
            try SettingsLoader.load(configPath: "/nonexistent/idp.conf", environment: [:])
        }
    }

    @Test func unknownIDPVariablesAreWarningsNamingThem() throws {
        let loaded = try SettingsLoader.load(configPath: nil, environment: ["IDP_LOG_LEVLE": "debug", "IDP_CONFIG": "", "HOME": "/root"])
        #expect(loaded.warnings == ["unknown environment variable IDP_LOG_LEVLE ignored; unknown key (did you mean log_level?)"])
    }

    @Test func badEnvironmentValuesNameTheVariable() {
        do {
            _ = try SettingsLoader.load(configPath: nil, environment: ["IDP_IDLE_TIMEOUT": "forever"])
            Issue.record("expected a configuration error")
        } catch let error as ConfigurationError {
            #expect(error.problems.map(\.description).first?.hasPrefix("environment variable IDP_IDLE_TIMEOUT: idle_timeout: expected a duration") == true)
        } catch { Issue.record("unexpected \(error)") }
    }

    @Test func theSampleConfigDocumentsEveryKeyAndLoads() throws {
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Config/idp.conf").path
        let text = try String(contentsOfFile: sample, encoding: .utf8)
        for key in SettingKey.all {
            #expect(text.contains("\n# \(key.name) =") || text.contains("\n\(key.name) ="), "Config/idp.conf lacks \(key.name)")
        }
        _ = try SettingsLoader.load(configPath: sample, environment: [:])
    }
}
