import Crypto
import Foundation
import Model
import Storage
import Testing
import TestSupport
@testable import Admin

@Suite struct UserCommandTests {
    let directory: TemporaryDirectory
    let environment: [String: String]

    init() throws {
        directory = try TemporaryDirectory("admin-users")
        environment = ["IDP_DATABASE": directory.file("idp.sqlite3"), "SUDO_USER": "ops"]
        let created = AdminCLI.run(["db", "init"], environment: environment, systemConfigPath: nil)
        #expect(created.status == 0, "db init: \(created.standardError)")
    }

    private func run(_ words: [String], input: String = "") -> AdminCLI.Result {
        AdminCLI.run(words, environment: environment, readInput: { input })
    }

    private func create(_ email: String, password: String = "Correct horse battery 7\n", extra: [String] = []) -> AdminCLI.Result {
        run(["users", "create", "--email", email, "--password-stdin", "--json"] + extra, input: password)
    }

    private func object(_ result: AdminCLI.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    }

    private func storedUser(_ email: String) throws -> User? {
        let store = try Store(path: environment["IDP_DATABASE"]!)
        defer { store.close() }
        return try SQLiteUserStore(store: store).find(email: email)
    }

    @Test func createPrintsTheUserButNeverThePasswordOrHash() throws {
        let result = create("Ada@Example.com", extra: ["--name", "Ada Lovelace", "--email-verified"])
        #expect(result.status == 0, "\(result.standardError)")
        let json = try object(result)
        #expect(Set(json.keys) == ["user_id", "email", "email_verified", "name", "created_at"])
        let userID = try #require(json["user_id"] as? String)
        #expect(userID.hasPrefix("auth0|"))
        #expect(userID.dropFirst(6).count == 24 && userID.dropFirst(6).allSatisfy(\.isHexDigit))
        #expect(json["email"] as? String == "Ada@Example.com")
        #expect(json["email_verified"] as? Bool == true)
        #expect(json["name"] as? String == "Ada Lovelace")
        #expect(!result.standardOutput.contains("orrect horse") && !result.standardOutput.contains("$argon2id$"))

        let user = try #require(try storedUser("ada@example.com"))
        #expect(user.userID == userID)
        let hash = try #require(user.passwordHash)
        #expect(hash.hasPrefix("$argon2id$"))
        #expect(PasswordHash.verify("Correct horse battery 7", against: hash))
        #expect(!PasswordHash.verify("Correct horse battery 7\n", against: hash))

        let text = run(["users", "create", "--email", "b@example.com", "--password-stdin"], input: "Another good one 4\n")
        #expect(text.status == 0)
        #expect(text.standardOutput.contains("user_id:") && text.standardOutput.contains("b@example.com"))
        #expect(!text.standardOutput.contains("Another good one 4"))
    }

    @Test(arguments: [
        ("S3cret-pass\n", "S3cret-pass"),
        ("S3cret-pass\r\n", "S3cret-pass"),
        ("S3cret-pass\n\n", "S3cret-pass\n"),
        ("S3cret-pass", "S3cret-pass"),
        ("  Spaced pass 9  \n", "  Spaced pass 9  "),
    ])
    func exactlyOneTrailingNewlineIsStripped(input: String, stored: String) throws {
        #expect(UserCommands.stripOneNewline(input) == stored)
        let result = create("n@example.com", password: input)
        #expect(result.status == 0, "\(result.standardError)")
        let hash = try #require(try storedUser("n@example.com")?.passwordHash)
        #expect(PasswordHash.verify(stored, against: hash))
    }

    @Test func aHundredCharacterPasswordIsAcceptedUntruncated() throws {
        let password = String(repeating: "abcdeFGHI1", count: 10)
        let result = create("long@example.com", password: password + "\n")
        #expect(result.status == 0, "\(result.standardError)")
        let hash = try #require(try storedUser("long@example.com")?.passwordHash)
        #expect(PasswordHash.verify(password, against: hash))
        #expect(!PasswordHash.verify(String(password.prefix(72)), against: hash))
        #expect(!PasswordHash.verify(String(password.dropLast()), against: hash))
    }

    /// negative-tests G09.
    @Test(arguments: ["", "\n", "short\n", "1234567\n", "password\n", "PASSWORD\n", "12345678\n", "qwertyuiop\n",
                      "iloveyou\n", "11111111\n", "Password1\n"])
    func shortAndCommonPasswordsAreRefused(input: String) throws {
        let result = create("weak@example.com", password: input)
        #expect(result.status == 1)
        #expect(result.standardError.contains("too weak") || result.standardError.contains("leaked or common"), "\(result.standardError)")
        #expect(try storedUser("weak@example.com") == nil)
    }

    @Test func aDuplicateEmailInAnyCaseIsRefused() throws {
        #expect(create("dup@example.com").status == 0)
        let again = create("DUP@Example.COM")
        #expect(again.status == 1)
        #expect(again.standardError.contains("a user with email DUP@Example.COM already exists"))
    }

    @Test(arguments: [
        (["users", "create", "--email", "a@example.com"], Int32(2), "--password-stdin is required"),
        (["users", "create", "--password-stdin"], Int32(2), "--email is required"),
        (["users", "create", "--email", "not-an-email", "--password-stdin"], Int32(1), "not an email address"),
        (["users", "create", "--email", "a@b@example.com", "--password-stdin"], Int32(1), "not an email address"),
        (["users", "create", "--email", "a b@example.com", "--password-stdin"], Int32(1), "not an email address"),
        (["users", "create", "--email", "@example.com", "--password-stdin"], Int32(1), "not an email address"),
        (["users", "create", "--email", "a@", "--password-stdin"], Int32(1), "not an email address"),
        (["users", "create", "--email", "a@example.com", "--password", "x"], Int32(2), "unknown flag --password"),
        (["users", "list", "--limit", "zero"], Int32(2), "--limit must be a positive number"),
        (["users", "show"], Int32(2), "expected 1 argument"),
        (["users", "show", "auth0|nobody"], Int32(1), "no user with id or email"),
    ])
    func errorsHaveTheDocumentedExitStatus(words: [String], status: Int32, message: String) {
        let result = run(words, input: "A fine password 3\n")
        #expect(result.status == status, "\(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    @Test func listFiltersAndLimitsAndShowFindsByIDOrEmail() throws {
        let ada = try object(create("ada@example.com", extra: ["--name", "Ada"]))
        _ = create("bob@example.org")
        _ = create("carol@example.com")

        let all = try #require(try JSONSerialization.jsonObject(with: Data(run(["users", "list", "--json"]).standardOutput.utf8)) as? [[String: Any]])
        #expect(all.count == 3)
        let filtered = try #require(try JSONSerialization.jsonObject(
            with: Data(run(["users", "list", "--email-contains", "EXAMPLE.COM", "--json"]).standardOutput.utf8)) as? [[String: Any]])
        #expect(Set(filtered.compactMap { $0["email"] as? String }) == ["ada@example.com", "carol@example.com"])
        let limited = try #require(try JSONSerialization.jsonObject(
            with: Data(run(["users", "list", "--limit", "1", "--json"]).standardOutput.utf8)) as? [[String: Any]])
        #expect(limited.count == 1)
        let table = run(["users", "list"]).standardOutput
        #expect(table.hasPrefix("USER_ID"))
        #expect(!table.contains("$argon2id$"))

        let userID = try #require(ada["user_id"] as? String)
        for key in [userID, "ADA@example.com"] {
            let shown = run(["users", "show", key, "--json"])
            #expect(shown.status == 0, "\(shown.standardError)")
            let json = try object(shown)
            #expect(json["user_id"] as? String == userID)
            #expect(json["name"] as? String == "Ada")
            #expect(json["has_password"] as? Bool == true)
            #expect(json["password_hash"] == nil)
            #expect(!shown.standardOutput.contains("$argon2id$"))
        }
        #expect(run(["users", "show", userID]).standardOutput.contains("ada@example.com"))
    }

    @Test func creationIsAuditedWithTheOperator() throws {
        let json = try object(create("audit@example.com"))
        let store = try Store(path: environment["IDP_DATABASE"]!)
        defer { store.close() }
        let events = try AuditStore(store: store).tail(limit: 10)
        #expect(events.map(\.event) == ["users.created"])
        #expect(events[0].actor == "ops")
        #expect(events[0].userID == json["user_id"] as? String)
        #expect(!events[0].details.values.contains { $0.contains("orrect horse") })
    }
}
