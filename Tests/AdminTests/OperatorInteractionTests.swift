import Foundation
import Settings
import Synchronization
import Testing
import TestSupport
@testable import Admin

/// What a person at a terminal sees: confirmations before destructive commands, progress of long
/// ones; and the system config file both binaries read.
@Suite struct OperatorInteractionTests {
    /// A terminal that answers every question with `answer` and records what it was shown.
    final class ScriptedTerminal: Sendable {
        let answer: String
        let questions = Mutex<[String]>([])
        let statusLines = Mutex<[String]>([])
        init(answer: String) { self.answer = answer }

        var terminal: Terminal {
            Terminal(ask: { question in self.questions.withLock { $0.append(question) }; return self.answer },
                     status: { line, _ in self.statusLines.withLock { $0.append(line) } })
        }
    }

    @Test func destructiveCommandsAskOnATerminalAndNoMeansNothingChanges() throws {
        let admin = try AdminHarness("confirm")
        let app = try admin.createApp()
        let no = ScriptedTerminal(answer: "n")
        let refused = admin.run(["apps", "delete", app.id], terminal: no.terminal)
        #expect(refused.status == 1 && refused.standardError.contains("not confirmed"), "\(refused.standardError)")
        #expect(no.questions.withLock { $0 }.first?.contains("Delete the application") == true)
        #expect(try admin.client(app.id) != nil)

        let skipped = ScriptedTerminal(answer: "n")
        #expect(admin.run(["apps", "delete", app.id, "--yes"], terminal: skipped.terminal).status == 0)
        #expect(skipped.questions.withLock { $0 }.isEmpty)
        #expect(try admin.client(app.id) == nil)

        let userID = try admin.createUser("bo@example.com")
        let yes = ScriptedTerminal(answer: "yes")
        #expect(admin.run(["users", "delete", userID], terminal: yes.terminal).status == 0)
        #expect(yes.questions.withLock { $0 }.count == 1)
        // Without a terminal (scripts), nobody is asked.
        let other = try admin.createApp()
        #expect(admin.run(["apps", "delete", other.id]).status == 0)
    }

    @Test func importShowsProgressOnlyOnATerminalAndASummaryAlways() throws {
        let admin = try AdminHarness("progress")
        let file = admin.directory.file("users.json")
        let records = (1...30).map { #"{"email": "p\#($0)@example.com"}"# }
        try ("[" + records.joined(separator: ",") + "]").write(toFile: file, atomically: true, encoding: .utf8)
        let shown = ScriptedTerminal(answer: "")
        let result = admin.run(["users", "import", file], terminal: shown.terminal)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("imported 30, skipped 0 (already exist), failed 0 in "))
        let last = try #require(shown.statusLines.withLock { $0 }.last)
        #expect(last.hasPrefix("importing users 30/30 (100%)") && last.contains("/s"), "\(last)")
        // Not on a terminal: the summary only, no progress on stderr.
        let quiet = admin.run(["users", "import", file])
        #expect(quiet.standardError.isEmpty && quiet.standardOutput.contains("skipped 30"))
    }

    @Test func backupShowsPagesOnATerminal() throws {
        let admin = try AdminHarness("backup-progress")
        for _ in 0..<3 { _ = try admin.createApp() }
        let shown = ScriptedTerminal(answer: "")
        let result = admin.run(["db", "backup", admin.directory.file("copy.sqlite3")], terminal: shown.terminal)
        #expect(result.status == 0, "\(result.standardError)")
        let last = try #require(shown.statusLines.withLock { $0 }.last)
        #expect(last.contains(": pages ") && last.contains("(100%)"), "\(last)")
        let quiet = admin.run(["db", "backup", admin.directory.file("copy2.sqlite3")])
        #expect(quiet.status == 0 && quiet.standardError.isEmpty)
    }

    @Test func progressLineHasCountRateAndTimeLeft() {
        let lines = Mutex<[String]>([])
        let terminal = Terminal(ask: { _ in nil }, status: { line, _ in lines.withLock { $0.append(line) } })
        let progress = Progress("copying", total: 1000, terminal: terminal)
        progress.advance(by: 250)
        let line = progress.line()
        #expect(line.hasPrefix("copying 250/1000 (25%), ") && line.hasSuffix("s left"), "\(line)")
        progress.finish()
        #expect(lines.withLock { $0 }.last?.hasPrefix("copying 250/1000") == true)
        #expect(Progress("quiet", total: 10, terminal: nil).line().hasPrefix("quiet 0/10"))
    }

    @Test func theSystemConfigFileIsReadWhenNoOtherIsNamed() throws {
        let directory = try TemporaryDirectory("system-config")
        let system = directory.file("idp.conf")
        try "database = \(directory.file("system.sqlite3"))\n".write(toFile: system, atomically: true, encoding: .utf8)
        let named = directory.file("named.conf")
        try "database = \(directory.file("named.sqlite3"))\n".write(toFile: named, atomically: true, encoding: .utf8)

        func database(_ configPath: String?, _ environment: [String: String]) throws -> String {
            try SettingsLoader.load(configPath: configPath, environment: environment, systemConfigPath: system).settings.database
        }
        // flag > IDP_CONFIG > system file > default; IDP_* over whichever file.
        #expect(try database(nil, [:]) == directory.file("system.sqlite3"))
        #expect(try database(named, [:]) == directory.file("named.sqlite3"))
        #expect(try database(nil, ["IDP_CONFIG": named]) == directory.file("named.sqlite3"))
        #expect(try database(nil, ["IDP_DATABASE": "/x.sqlite3"]) == "/x.sqlite3")
        #expect(try SettingsLoader.load(configPath: nil, environment: [:], systemConfigPath: directory.file("absent.conf")).settings.database
                == "data/idp.sqlite3")
        #expect(SettingsLoader.systemConfigPath == "/etc/gatehouse/idp.conf")

        // idp-admin reads it too, and says so.
        let result = AdminCLI.run(["config", "check", "--json"], environment: [:], systemConfigPath: system)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let settings = try #require(object["settings"] as? [String: [String: String]])
        #expect(settings["database"]?["source"] == "\(system):1")
        let missing = AdminCLI.run(["users", "list"], environment: [:], systemConfigPath: system)
        #expect(missing.standardError.contains("set by `database` in \(system):1"), "\(missing.standardError)")
    }
}
