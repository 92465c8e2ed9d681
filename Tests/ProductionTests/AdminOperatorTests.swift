import Foundation
import Testing
import TestSupport

/// `idp-admin` as an operator runs it: the real binary as a subprocess, in a directory of its own (issue #17).
@Suite struct AdminOperatorTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory("idp-admin-op") }

    func admin(_ arguments: [String], _ environment: [String: String] = [:], in path: String? = nil,
               input: String = "") throws -> (status: Int32, stdout: String, stderr: String) {
        try AdminProcess.run(arguments, environment: environment, directory: path ?? directory.path, input: input)
    }

    /// A database created with `db init` at `IDP_DATABASE`, and that environment.
    func initialized() throws -> [String: String] {
        let environment = ["IDP_DATABASE": directory.file("idp.sqlite3")]
        let created = try admin(["db", "init"], environment)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("created \(directory.file("idp.sqlite3"))"))
        return environment
    }

    func jsonObject(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    @Test func aCommandFromTheWrongDirectoryRefusesAndSaysWhereItLooked() throws {
        let result = try admin(["apps", "create", "--name", "X", "--type", "regular", "--callbacks", "https://x.example.com/cb"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("no database at \(directory.path)/data/idp.sqlite3"), "\(result.stderr)")
        #expect(result.stderr.contains("the default `database = data/idp.sqlite3`"))
        #expect(result.stderr.contains("relative to the working directory \(directory.path)"))
        #expect(result.stderr.contains("IDP_DATABASE") && result.stderr.contains("--config") && result.stderr.contains("db init"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("data")))

        let fromEnvironment = try admin(["users", "list"], ["IDP_DATABASE": directory.file("elsewhere.sqlite3")])
        #expect(fromEnvironment.status == 1 && fromEnvironment.stderr.contains("set by IDP_DATABASE"), "\(fromEnvironment.stderr)")

        let config = directory.file("idp.conf")
        try "# test\ndatabase = \(directory.file("conf.sqlite3"))\n".write(toFile: config, atomically: true, encoding: .utf8)
        let fromFile = try admin(["--json", "keys", "list", "--config", config])
        #expect(fromFile.status == 1)
        let error = try jsonObject(fromFile.stderr)
        #expect(error["error"] as? String == "no_database")
        #expect((error["message"] as? String)?.contains("set by `database` in \(config):2") == true, "\(fromFile.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("conf.sqlite3")))
        #expect(!FileManager.default.fileExists(atPath: directory.file("elsewhere.sqlite3")))
    }

    @Test func mutatingCommandsNameTheDatabaseTheyChanged() throws {
        let environment = try initialized()
        let created = try admin(["apps", "create", "--name", "Web", "--type", "regular", "--callbacks", "https://w.example.com/cb"], environment)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("database: \(directory.file("idp.sqlite3"))"), "\(created.stdout)")
        // Read-only commands do not.
        #expect(try admin(["apps", "list"], environment).stdout.contains("database:") == false)
    }

    @Test func globalFlagsComeBeforeTheCommandToo() throws {
        let environment = try initialized()
        let config = directory.file("idp.conf")
        try "database = \(directory.file("idp.sqlite3"))\n".write(toFile: config, atomically: true, encoding: .utf8)
        let listed = try admin(["--config", config, "--json", "apps", "list"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]" || listed.stdout.contains("[]"))
        #expect(try admin(["--json", "apps", "list"], environment).status == 0)
        #expect(try admin(["--config=\(config)", "users", "list"]).stdout.contains("(none)"))

        for words in [["--version"], ["version"]] {
            let version = try admin(words)
            #expect(version.status == 0 && version.stdout.hasPrefix("idp-admin 0."), "\(words): \(version)")
        }
        let noun = try admin(["apps"])
        #expect(noun.status == 0, "\(noun.stderr)")
        for verb in ["apps create", "apps update", "apps test-callback", "apps grant"] { #expect(noun.stdout.contains("idp-admin \(verb)"), "\(verb)") }
        #expect(!noun.stdout.contains("idp-admin apis"))

        // In `help`, each noun's verbs stay together: every apps line is in one block.
        let help = try admin(["help"]).stdout.split(separator: "\n").map(String.init)
        let appsLines = help.indices.filter { help[$0].hasPrefix("  apps ") }
        #expect(appsLines.count >= 7)
        #expect(appsLines.last! - appsLines.first! == appsLines.count - 1, "apps commands are split: \(appsLines)")
        #expect(help.contains { $0.hasPrefix("  db init") })

        let unknown = try admin(["--jsno", "apps", "list"])
        #expect(unknown.status == 2 && unknown.stderr.contains("did you mean --json?"), "\(unknown.stderr)")
    }

    @Test func jsonMeansMachineReadableForErrorsToo() throws {
        let environment = try initialized()
        let cases: [([String], Int32, String)] = [
            (["--json", "apps", "show", "nope"], 1, "failed"),
            (["apps", "create", "--json"], 2, "usage"),
            (["--json", "apps", "frobnicate"], 2, "usage"),
            (["--json", "config", "check", "--config", directory.file("missing.conf")], 78, "configuration"),
        ]
        for (words, status, code) in cases {
            let result = try admin(words, environment)
            #expect(result.status == status, "\(words): \(result)")
            #expect(result.stdout.isEmpty, "\(words)")
            #expect(result.stderr.hasSuffix("}\n") && result.stderr.split(separator: "\n").count == 1, "\(words): one line: \(result.stderr)")
            let object = try jsonObject(result.stderr)
            #expect(object["error"] as? String == code, "\(words)")
            #expect(Set(object.keys) == ["error", "message"])
            #expect((object["message"] as? String)?.hasPrefix("idp-admin") == false)
        }
    }

    @Test func aRefusedCallbackIsAResultOnStandardOutput() throws {
        let environment = try initialized()
        let created = try jsonObject(try admin(["apps", "create", "--name", "Web", "--type", "regular", "--callbacks",
                                                "https://w.example.com/cb", "--json"], environment).stdout)
        let clientID = try #require(created["client_id"] as? String)
        let refused = try admin(["apps", "test-callback", clientID, "https://w.example.com/other", "--json"], environment)
        #expect(refused.status == 1)
        #expect(refused.stderr.isEmpty, "\(refused.stderr)")
        let verdict = try jsonObject(refused.stdout)
        #expect(verdict["allowed"] as? Bool == false)
        #expect(verdict["nearest"] as? String == "https://w.example.com/cb")
        let text = try admin(["apps", "test-callback", clientID, "https://w.example.com/other"], environment)
        #expect(text.status == 1 && text.stdout.contains("refused") && text.stderr.isEmpty)
        #expect(try admin(["apps", "test-callback", clientID, "https://w.example.com/cb"], environment).status == 0)
    }

    @Test func everyBadURLIsReportedAtOnceAndRiskySettingsWarn() throws {
        let environment = try initialized()
        let bad = try admin(["apps", "create", "--name", "iOS", "--type", "native",
                             "--callbacks", "javascript:alert(1),https://ok.example.com/cb,http://example.com/cb",
                             "--logout-urls", "https://x.example.com/#frag"], environment)
        #expect(bad.status == 1)
        for part in ["3 URLs refused", "--callbacks javascript:alert(1)", "--callbacks http://example.com/cb", "--logout-urls https://x.example.com/#frag"] {
            #expect(bad.stderr.contains(part), "\(part): \(bad.stderr)")
        }
        #expect(!bad.stderr.contains("https://ok.example.com/cb:"))

        // Accepted, with warnings on standard error (text) or in the result (--json).
        let first = try admin(["apps", "create", "--name", "iOS", "--type", "native", "--callbacks", "myapp://callback",
                               "--bundle-id", "com.example.app", "--id-token-alg", "ES256"], environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("warning: --callbacks myapp://callback") && first.stderr.contains("RFC 8252 §7.1"), "\(first.stderr)")
        #expect(first.stderr.contains("Auth0.swift and Auth0.Android verify RS256"))
        let second = try jsonObject(try admin(["apps", "create", "--name", "ios", "--type", "spa", "--json"], environment).stdout)
        let warnings = second["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("another application is named \"iOS\"") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("without callback URLs") })
        let clientID = try #require(second["client_id"] as? String)
        let update = try admin(["apps", "update", clientID, "--callbacks", "https://s.example.com/cb", "--name", "SPA"], environment)
        #expect(update.status == 0 && update.stderr.isEmpty, "\(update.stderr)")
        let sameBundle = try admin(["apps", "create", "--name", "Other", "--type", "native", "--callbacks", "com.example.app://cb",
                                    "--bundle-id", "com.example.app"], environment)
        #expect(sameBundle.stderr.contains("another application has the bundle id com.example.app"), "\(sameBundle.stderr)")
    }

    @Test func userAcceptsAnEmailEverywhere() throws {
        let environment = try initialized()
        #expect(try admin(["users", "create", "--email", "ada@example.com", "--password-stdin"], environment, input: "Correct horse battery 7\n").status == 0)
        for words in [["sessions", "list", "--user", "ADA@example.com"], ["sessions", "revoke-all", "--user", "ada@example.com"],
                      ["tokens", "revoke", "--user", "ada@example.com"], ["audit", "tail", "--user", "ada@example.com"]] {
            let result = try admin(words, environment)
            #expect(result.status == 0, "\(words): \(result.stderr)")
        }
        let missing = try admin(["sessions", "list", "--user", "nobody@example.com"], environment)
        #expect(missing.status == 1 && missing.stderr.contains("no user with id or email nobody@example.com"))
    }

    @Test func usersListAndAuditTailPage() throws {
        let environment = try initialized()
        for index in 1...5 {
            let created = try admin(["users", "create", "--email", "u\(index)@example.com", "--password-stdin"], environment,
                                    input: "Correct horse battery \(index)\n")
            #expect(created.status == 0)
        }
        func page(_ extra: [String]) throws -> [[String: Any]] {
            try JSONSerialization.jsonObject(with: Data(try admin(["users", "list", "--json"] + extra, environment).stdout.utf8)) as? [[String: Any]] ?? []
        }
        // Pages of two walk the whole list once, in the list's own order (users made in one second sort by id).
        let all = try page([]).compactMap { $0["user_id"] as? String }
        #expect(all.count == 5)
        let page1 = try page(["--take", "2"])
        let last = try #require(page1.last?["user_id"] as? String)
        #expect(try admin(["users", "list", "--take", "2"], environment).stdout.contains("next page: idp-admin users list --from \(last) --take 2"))
        let page2 = try page(["--from", last, "--take", "2"])
        let page3 = try page(["--from", try #require(page2.last?["user_id"] as? String), "--take", "2"])
        #expect((page1 + page2 + page3).compactMap { $0["user_id"] as? String } == all)
        #expect(try admin(["users", "list", "--from", "auth0|nope"], environment).status == 1)

        let events = try JSONSerialization.jsonObject(with: Data(try admin(["audit", "tail", "--from", "0", "--take", "3", "--json"], environment).stdout.utf8)) as? [[String: Any]] ?? []
        #expect(events.count == 3)
        let ids = events.compactMap { $0["id"] as? Int }
        #expect(ids == ids.sorted() && ids.count == 3)
        let next = try JSONSerialization.jsonObject(with: Data(try admin(["audit", "tail", "--from", "\(ids.last!)", "--take", "3", "--json"], environment).stdout.utf8)) as? [[String: Any]] ?? []
        #expect(next.count == 2 && (next.first?["id"] as? Int ?? 0) > ids.last!)
    }

    @Test func keysShowWhenRetiredAndARecentlyRetiredKeyNeedsForce() throws {
        let environment = try initialized()
        let rotated = try jsonObject(try admin(["keys", "rotate", "--alg", "ES256", "--json"], environment).stdout)
        let keys = try JSONSerialization.jsonObject(with: Data(try admin(["keys", "list", "--json"], environment).stdout.utf8)) as? [[String: Any]] ?? []
        let retired = try #require(keys.first { $0["status"] as? String == "retired" })
        #expect(retired["retired_at"] is String)
        #expect(try admin(["keys", "list"], environment).stdout.contains("RETIRED_AT"))
        let kid = try #require(retired["kid"] as? String)
        let refused = try admin(["keys", "delete", kid], environment)
        #expect(refused.status == 1 && refused.stderr.contains("--force") && refused.stderr.contains("86400 s"), "\(refused.stderr)")
        #expect(try admin(["keys", "delete", kid, "--force"], environment).status == 0)
        #expect(rotated["status"] as? String == "active")
    }

    @Test func backupToAMissingDirectorySaysSo() throws {
        let environment = try initialized()
        let result = try admin(["db", "backup", directory.file("nowhere/b.sqlite3")], environment)
        #expect(result.status == 1)
        #expect(result.stderr.contains("the directory \(directory.path)/nowhere does not exist"), "\(result.stderr)")
        #expect(!result.stderr.contains("SQLite error"))
    }
}
