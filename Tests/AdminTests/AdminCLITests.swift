import Foundation
import Testing
@testable import Admin
import Settings

@Suite struct AdminCLITests {
    @Test(arguments: [[], ["help"], ["--help"], ["-h"]])
    func helpListsEveryCommand(words: [String]) {
        let result = AdminCLI.run(words, environment: [:])
        #expect(result.status == 0)
        for command in CommandCatalog.all {
            #expect(result.standardOutput.contains(command.name), "help lacks \(command.name)")
        }
    }

    @Test func everyCommandHasHelpThroughAllThreeSpellings() {
        for command in CommandCatalog.all {
            for words in [["help"] + command.path, command.path + ["--help"], command.path + ["-h"]] {
                let result = AdminCLI.run(words, environment: [:])
                #expect(result.status == 0, "\(words)")
                #expect(result.standardOutput.contains("Usage: idp-admin \(command.usage)"), "\(words)")
            }
        }
    }

    @Test func anUnknownCommandSuggestsTheNearestAndExits2() {
        let result = AdminCLI.run(["config", "chek"], environment: [:])
        #expect(result.status == 2)
        #expect(result.standardError.contains("did you mean \"config check\"?"))
    }

    @Test func anUnknownFlagSuggestsTheNearestAndExits2() {
        let result = AdminCLI.run(["config", "check", "--jsn"], environment: [:])
        #expect(result.status == 2)
        #expect(result.standardError.contains("unknown flag --jsn (did you mean --json?)"))
    }

    @Test func extraPositionalArgumentsAreUsageErrors() {
        let result = AdminCLI.run(["config", "check", "surplus"], environment: [:])
        #expect(result.status == 2)
        #expect(result.standardError.contains("Usage: idp-admin config check"))
    }

    @Test func configCheckPrintsEffectiveSettingsAndSources() throws {
        let result = AdminCLI.run(["config", "check", "--json"], environment: ["IDP_LOG_LEVEL": "debug"])
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        let settings = object?["settings"] as? [String: [String: String]]
        #expect(settings?["log_level"] == ["value": "debug", "source": "environment variable IDP_LOG_LEVEL"])
        #expect(settings?["listen"] == ["value": "127.0.0.1:8080", "source": "default"])
        #expect(settings?.count == SettingKey.all.count)
    }

    @Test func configCheckExits78OnABadConfiguration() {
        let result = AdminCLI.run(["config", "check"], environment: ["IDP_LISTEN": "nowhere"])
        #expect(result.status == 78)
        #expect(result.standardError.contains("IDP_LISTEN"))
    }

    @Test func effectiveSettingsDescribeEveryKeyAndReloadToTheSameSettings() throws {
        var environment: [String: String] = [:]
        let described = EffectiveSettings.describe(Settings())
        for key in SettingKey.all {
            let value = try #require(described[key.name], "no description for \(key.name)")
            if !value.isEmpty { environment[key.environmentName] = value }
        }
        let reloaded = try SettingsLoader.load(configPath: nil, environment: environment).settings
        #expect(EffectiveSettings.describe(reloaded) == described)
    }
}

@Suite struct ArgumentParsingTests {
    @Test(arguments: [
        (["-abc_DEF"], ["-abc_DEF"], false),
        (["--json", "-x1"], ["-x1"], true),
        (["--", "--json"], ["--json"], false),
        (["-h"], [], false),
    ])
    func singleDashWordsAreValues(words: [String], positionals: [String], json: Bool) throws {
        let parsed = try Arguments.parse(words, valueFlags: ["--config"], switchFlags: ["--json", "--help", "-h"])
        #expect(parsed.positionals == positionals)
        #expect(parsed.has("--json") == json)
    }

    @Test func unknownDoubleDashFlagsAreStillUsageErrors() {
        #expect(throws: AdminError.self) {
            try Arguments.parse(["--jsn"], valueFlags: [], switchFlags: ["--json"])
        }
    }
}
