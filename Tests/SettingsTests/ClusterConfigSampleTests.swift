import Foundation
import Settings
import Testing

/// `Config/idp-postgresql.conf`, the node sample of README "Running several nodes": it loads as it
/// stands, names PostgreSQL, and comments every key it sets.
@Suite struct ClusterConfigSampleTests {
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Config/idp-postgresql.conf").path

    @Test func loadsAndSelectsPostgreSQL() throws {
        let settings = try SettingsLoader.load(configPath: Self.sample, environment: [:], systemConfigPath: nil).settings
        #expect(settings.isPostgreSQL)
        #expect(settings.database.contains("sslmode=verify-full"))
        #expect(settings.databasePasswordFile == "/etc/gatehouse/database-password")
        #expect(settings.keyEncryptionKeyFile == "/etc/gatehouse/idp.kek")
    }

    @Test func everyKeyItSetsHasACommentAbove() throws {
        let lines = try String(contentsOfFile: Self.sample, encoding: .utf8).components(separatedBy: "\n")
        for (index, line) in lines.enumerated() where !line.hasPrefix("#") && line.contains(" = ") {
            let key = String(line.prefix { $0 != " " })
            #expect(SettingKey.named(key) != nil, "\(key) is not a setting")
            #expect(index > 0 && lines[index - 1].hasPrefix("#"), "\(key) has no comment")
        }
    }
}
