import Crypto
import Foundation
import Model
import Storage
import Testing
import TestSupport
@testable import Admin

/// `idp-admin users import FILE`: Auth0's bulk user import/export JSON.
@Suite struct UserImportTests {
    let admin: AdminHarness

    init() throws { admin = try AdminHarness("admin-import") }

    /// A bcrypt hash made by another implementation (libxcrypt through Python's `crypt`), cost 4 to stay fast.
    static func bcrypt(_ password: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-W", "ignore", "-c",
                             "import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))", password]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let hash = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(hash.hasPrefix("$2b$04$") && hash.count == 60, "python3 crypt gave \(hash)")
        return hash
    }

    private func write(_ text: String, name: String = "users.json") throws -> String {
        let path = admin.directory.file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func report(_ result: AdminCLI.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardError)")
    }

    @Test func goodAndBadRecordsMixed() throws {
        let hash = try Self.bcrypt("imported password")
        let file = try write("""
            [
              {"email": "ada@example.com", "email_verified": true, "name": "Ada Lovelace", "given_name": "Ada",
               "family_name": "Lovelace", "nickname": "ada", "picture": "https://img.example.com/ada.png",
               "user_id": "5f7c8ec7c33c6c004bbafe82", "password_hash": "\(hash)", "app_metadata": {"plan": "pro"}},
              {"email_verified": true},
              {"email": "bob@example.com", "password_hash": "$1$md5$notbcrypt"},
              {"email": "carol@example.com", "user_id": "google-oauth2|1234", "blocked": true,
               "custom_password_hash": {"algorithm": "bcrypt", "hash": {"value": "\(hash)"}}},
              {"email": "dan@example.com", "custom_password_hash": {"algorithm": "md5", "hash": {"value": "abc"}}},
              "not an object",
              {"email": "erin@example.com", "email_verified": "yes"},
              {"email": "frank@example.com"}
            ]
            """)
        let result = admin.run(["users", "import", file, "--json"])
        #expect(result.status == 1)
        let json = try report(result)
        #expect(json["imported"] as? Int == 3)
        #expect(json["skipped"] as? Int == 0)
        let failed = try #require(json["failed"] as? [[String: Any]])
        #expect(failed.map { $0["index"] as? Int } == [2, 3, 5, 6, 7])
        #expect(failed.map { $0["email"] as? String } == [nil, "bob@example.com", "dan@example.com", nil, "erin@example.com"])
        #expect(failed.allSatisfy { Set($0.keys) == ["index", "email", "error"] })
        let errors = failed.compactMap { $0["error"] as? String }
        #expect(errors[0].contains("email is required"))
        #expect(errors[1].contains("password_hash is not a bcrypt hash"))
        #expect(errors[2].contains("custom_password_hash algorithm md5 is not supported"))
        #expect(errors[3].contains("not a JSON object"))
        #expect(errors[4].contains("email_verified must be true or false"))

        let ada = try #require(try admin.user("ada@example.com"))
        #expect(ada.userID == "auth0|5f7c8ec7c33c6c004bbafe82")
        #expect(ada.emailVerified && ada.name == "Ada Lovelace" && ada.givenName == "Ada" && ada.familyName == "Lovelace")
        #expect(ada.nickname == "ada" && ada.picture == "https://img.example.com/ada.png" && !ada.blocked)
        #expect(ada.passwordHash == hash)  // Kept as is; moved to Argon2id at the next sign-in.
        #expect(PasswordHash.verify("imported password", against: hash))
        #expect(PasswordHash.needsRehash(hash))
        let carol = try #require(try admin.user("carol@example.com"))
        #expect(carol.userID == "google-oauth2|1234" && carol.blocked && carol.passwordHash == hash && !carol.emailVerified)
        let frank = try #require(try admin.user("frank@example.com"))
        #expect(frank.userID.hasPrefix("auth0|") && frank.passwordHash == nil)
        #expect(try admin.user("bob@example.com") == nil)
        #expect(try admin.user("dan@example.com") == nil)

        let text = admin.run(["users", "import", file])
        #expect(text.status == 1)
        #expect(text.standardOutput.contains("imported 0, skipped 3 (already exist), failed 5"))
        #expect(text.standardOutput.contains("record 3 (bob@example.com): error: password_hash is not a bcrypt hash"))
        #expect(text.standardOutput.contains("record 1 (ada@example.com): exists"))
    }

    @Test func rerunningTheSameFileSkipsExistingUsers() throws {
        _ = try admin.createUser("Existing@Example.com")
        let file = try write("""
            [{"email": "one@example.com"}, {"email": "two@example.com", "user_id": "auth0|two"}, {"email": "existing@example.COM"}]
            """)
        let first = admin.run(["users", "import", file, "--json"])
        #expect(first.status == 0, "\(first.standardError)")
        let json = try report(first)
        #expect(json["imported"] as? Int == 2 && json["skipped"] as? Int == 1 && (json["failed"] as? [Any])?.isEmpty == true)
        let again = try report(admin.run(["users", "import", file, "--json"]))
        #expect(again["imported"] as? Int == 0 && again["skipped"] as? Int == 3)
        #expect(try admin.jsonArray(["users", "list"]).count == 3)
        #expect(admin.run(["users", "import", file]).status == 0)
    }

    @Test func ndjsonIsAcceptedWithLineNumbers() throws {
        let hash = try Self.bcrypt("ndjson password")
        let file = try write("""
            {"email": "a@example.com", "password_hash": "\(hash.replacingOccurrences(of: "$2b$", with: "$2a$"))"}

            {"email": "b@example.com", "password_hash": "\(hash)"}
            {"email": "broken@example.com",
            {"email": "c@example.com", "user_id": "|nothing"}
            {"email": "d@example.com", "password_hash": "\(hash)", "custom_password_hash": {"algorithm": "bcrypt", "hash": {"value": "\(hash)"}}}
            """, name: "users.ndjson")
        let result = admin.run(["users", "import", file, "--json"])
        #expect(result.status == 1)
        let json = try report(result)
        #expect(json["imported"] as? Int == 2)
        let failed = try #require(json["failed"] as? [[String: Any]])
        #expect(failed.map { $0["index"] as? Int } == [4, 5, 6])
        #expect((failed[1]["error"] as? String)?.contains("user_id |nothing is not provider|id") == true)
        #expect((failed[2]["error"] as? String)?.contains("not both") == true)
        let a = try #require(try admin.user("a@example.com")?.passwordHash)
        #expect(a.hasPrefix("$2a$") && PasswordHash.verify("ndjson password", against: a))
    }

    /// A bcrypt cost above what a sign-in verifies is refused at import, naming the cost and the way out.
    @Test func aBcryptCostNoSignInVerifiesIsRefused() throws {
        let expensive = "$2b$19$" + String(repeating: "C", count: 53)
        let file = try write("""
            [{"email": "slow@example.com", "password_hash": "\(expensive)"},
             {"email": "slower@example.com", "custom_password_hash": {"algorithm": "bcrypt", "hash": {"value": "\(expensive.replacingOccurrences(of: "$19$", with: "$31$"))"}}}]
            """)
        let result = admin.run(["users", "import", file, "--json"])
        #expect(result.status == 1)
        let failed = try #require(try report(result)["failed"] as? [[String: Any]])
        #expect((failed.first?["error"] as? String)?.contains("bcrypt cost 19 is above 18") == true)
        #expect((failed.last?["error"] as? String)?.contains("bcrypt cost 31 is above 18") == true)
        #expect(try admin.user("slow@example.com") == nil)
    }

    @Test func aUserIDTakenByAnotherEmailIsAFailure() throws {
        let file = try write(#"[{"email": "x@example.com", "user_id": "auth0|same"}, {"email": "y@example.com", "user_id": "same"}]"#)
        let json = try report(admin.run(["users", "import", file, "--json"]))
        let failed = try #require(json["failed"] as? [[String: Any]])
        #expect(failed.count == 1 && failed[0]["index"] as? Int == 2)
        #expect((failed[0]["error"] as? String)?.contains("user_id auth0|same is taken") == true)
    }

    @Test func importsAreAuditedPerUserAndAsAWhole() throws {
        let file = try write(#"[{"email": "audit@example.com"}, {"nope": 1}]"#)
        _ = admin.run(["users", "import", file])
        let events = try admin.auditEvents()
        #expect(events.map(\.event) == ["users.created", "users.imported"])
        #expect(events.allSatisfy { $0.actor == "ops" })
        #expect(events[0].details == ["email": "audit@example.com", "source": "import"])
        #expect(events[1].details["imported"] == "1" && events[1].details["failed"] == "1")
    }

    @Test(arguments: [
        ("[{\"email\": \"a@example.com\"", "not a valid JSON array"),
        ("", "holds no users"),
    ])
    func unusableFilesExit1(contents: String, message: String) throws {
        let result = admin.run(["users", "import", try write(contents)])
        #expect(result.status == 1)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    @Test func aMissingFileAndUsageErrors() {
        let missing = admin.run(["users", "import", admin.directory.file("nope.json")])
        #expect(missing.status == 1 && missing.standardError.contains("cannot read"))
        #expect(admin.run(["users", "import"]).status == 2)
    }

    @Test func standardInputWorksAsTheFile() throws {
        let result = admin.run(["users", "import", "-", "--json"], input: #"{"email": "stdin@example.com"}"#)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try admin.user("stdin@example.com") != nil)
    }

    @Test(arguments: [
        ("$2b$12$xEF1gmRwryIY.emtWCoOIuM4jY/MbZ0EG/KgHj6KhAkCrc7qUrWC2", true),
        ("$2y$10$xEF1gmRwryIY.emtWCoOIuM4jY/MbZ0EG/KgHj6KhAkCrc7qUrWC2", true),
        ("$2x$12$xEF1gmRwryIY.emtWCoOIuM4jY/MbZ0EG/KgHj6KhAkCrc7qUrWC2", false),
        ("$2b$03$xEF1gmRwryIY.emtWCoOIuM4jY/MbZ0EG/KgHj6KhAkCrc7qUrWC2", false),
        ("$2b$12$xEF1gmRwryIY.emtWCoOIuM4jY/MbZ0EG/KgHj6KhAkCrc7qUrWC", false),
        ("$2b$12$xEF1gmRwryIY.emtWCoOIuM4jY/MbZ0EG/KgHj6KhAkCrc7qUrW!2", false),
        ("$scrypt$ln=15,r=8,p=1$AAAA$BBBB", false),
    ])
    func bcryptShapes(hash: String, valid: Bool) {
        #expect(UserImport.isBcrypt(hash) == valid)
    }
}
