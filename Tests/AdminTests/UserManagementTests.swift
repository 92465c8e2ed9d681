import Crypto
import Foundation
import Model
import OIDC
import Storage
import Testing
import TestSupport
@testable import Admin

/// `idp-admin users update | block | unblock | set-password | delete` (negative-tests D08, G09).
@Suite struct UserManagementTests {
    let admin: AdminHarness

    init() throws { admin = try AdminHarness("admin-users-manage") }

    @Test func updateChangesEachProfileField() throws {
        let userID = try admin.createUser("ada@example.com")
        let shown = try admin.json([
            "users", "update", userID, "--name", "Ada Lovelace", "--given-name", "Ada", "--family-name", "Lovelace",
            "--nickname", "ada", "--picture", "https://images.example.com/ada.png", "--email-verified", "true",
        ])
        #expect(shown["name"] as? String == "Ada Lovelace")
        #expect(shown["picture"] as? String == "https://images.example.com/ada.png")
        #expect(shown["password_hash"] == nil)
        let user = try #require(try admin.user(userID))
        #expect(user.name == "Ada Lovelace" && user.givenName == "Ada" && user.familyName == "Lovelace" && user.nickname == "ada")
        #expect(user.picture == "https://images.example.com/ada.png" && user.emailVerified)

        // Only what is given changes; an empty value removes a field.
        _ = try admin.json(["users", "update", "ADA@example.com", "--nickname", "", "--email-verified", "false"])
        let after = try #require(try admin.user(userID))
        #expect(after.nickname == nil && !after.emailVerified && after.givenName == "Ada" && after.passwordHash == user.passwordHash)
    }

    @Test func updateChangesTheEmailKeepingItUnique() throws {
        let userID = try admin.createUser("old@example.com")
        _ = try admin.createUser("taken@example.com")
        _ = try admin.json(["users", "update", userID, "--email-verified", "true"])
        _ = try admin.json(["users", "update", userID, "--email", "New@Example.com"])
        let user = try #require(try admin.user("new@example.com"))
        #expect(user.userID == userID && user.email == "New@Example.com")
        #expect(!user.emailVerified)  // A new address is not verified.
        #expect(try admin.user("old@example.com") == nil)

        let duplicate = admin.run(["users", "update", userID, "--email", "TAKEN@example.COM"])
        #expect(duplicate.status == 1)
        #expect(duplicate.standardError.contains("a user with email TAKEN@example.COM already exists"))
        // Changing only the case of one's own email is fine.
        _ = try admin.json(["users", "update", userID, "--email", "new@example.com"])
        #expect(try admin.user(userID)?.email == "new@example.com")
    }

    @Test(arguments: [
        (["--email", "not-an-email"], Int32(1), "not an email address"),
        (["--picture", "javascript:alert(1)"], Int32(1), "a picture is an absolute https URL"),
        (["--picture", "http://images.example.com/a.png"], Int32(1), "a picture is an absolute https URL"),
        (["--email-verified", "yes"], Int32(2), "--email-verified must be true or false"),
        (["--password", "x"], Int32(2), "unknown flag --password"),
        (["--nickame", "x"], Int32(2), "did you mean --nickname?"),
        ([], Int32(2), "nothing to change"),
    ])
    func badUpdatesAreRefused(flags: [String], status: Int32, message: String) throws {
        let userID = try admin.createUser("bad@example.com")
        let before = try admin.user(userID)
        let result = admin.run(["users", "update", userID] + flags)
        #expect(result.status == status, "\(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(try admin.user(userID) == before)
    }

    @Test(arguments: [["users", "update", "auth0|nobody", "--name", "x"], ["users", "block", "auth0|nobody"],
                      ["users", "unblock", "nobody@example.com"], ["users", "delete", "auth0|nobody"],
                      ["users", "set-password", "auth0|nobody", "--password-stdin"]])
    func anUnknownUserExits1(words: [String]) {
        let result = admin.run(words, input: "A fine password 3\n")
        #expect(result.status == 1)
        #expect(result.standardError.contains("no user with id or email"), "\(result.standardError)")
    }

    /// D08: blocking ends the user's sessions, revokes their grants and refresh tokens, deletes pending codes.
    @Test func blockAndUnblockRoundTrip() throws {
        let app = try admin.createApp()
        let userID = try admin.createUser("eve@example.com")
        let held = try admin.seedHoldings(userID: userID, clientID: app.id)
        let bystander = try admin.seedHoldings(userID: try admin.createUser("bob@example.com"), clientID: app.id)

        let blocked = try admin.json(["users", "block", "eve@example.com"])
        #expect(blocked["blocked"] as? Bool == true && blocked["revoked_grants"] as? Int == 1 && blocked["ended_sessions"] as? Int == 1)
        #expect(try admin.user(userID)?.blocked == true)
        try expectRevoked(held)
        #expect(try admin.count("SELECT count(*) FROM refresh_tokens WHERE token_hash = ? AND revoked_at IS NULL",
                                [.text(bystander.refreshHash)]) == 1, "another user's refresh token stays live")
        #expect(try admin.json(["users", "show", userID])["blocked"] as? Bool == true)

        _ = try admin.json(["users", "unblock", userID])
        #expect(try admin.user(userID)?.blocked == false)
        let events = try admin.auditEvents().suffix(2)
        #expect(events.map(\.event) == ["users.blocked", "users.unblocked"])
        #expect(events.allSatisfy { $0.actor == "ops" && $0.userID == userID })
    }

    /// G02: `users show` lists an account's sign-in locks; `users unblock` lifts them (and says so)
    /// without touching another account's.
    @Test func unblockLiftsSignInLocks() throws {
        let userID = try admin.createUser("eve@example.com")
        _ = try admin.createUser("bob@example.com")
        try admin.withStore { store in
            let throttle = LoginThrottle(store: SQLiteLoginThrottleStore(store: store), clock: SystemClock())
            for _ in 0..<10 { try throttle.recordFailure(email: "eve@example.com", ip: "198.51.100.7") }
            try throttle.recordFailure(email: "bob@example.com", ip: "198.51.100.7")
        }
        let shown = try admin.json(["users", "show", "eve@example.com"])
        let locks = try #require(shown["sign_in_locks"] as? [[String: Any]])
        let pair = try #require(locks.first { $0["scope"] as? String == "email+address" })
        #expect(pair["address"] as? String == "198.51.100.7" && pair["failures"] as? Int == 10 && pair["locked_until"] != nil)
        #expect(locks.contains { $0["scope"] as? String == "account" && $0["failures"] as? Int == 10 })
        #expect(admin.run(["users", "show", "eve@example.com"]).standardOutput.contains("email+address from 198.51.100.7: 10 failure(s), locked until"))

        let lifted = admin.run(["users", "unblock", userID])
        #expect(lifted.status == 0)
        #expect(lifted.standardOutput.contains("lifted 2 sign-in lock(s)") && !lifted.standardOutput.contains("it already was"))
        #expect((try admin.json(["users", "show", userID])["sign_in_locks"] as? [[String: Any]])?.isEmpty == true)
        #expect((try admin.json(["users", "show", "bob@example.com"])["sign_in_locks"] as? [[String: Any]])?.count == 2)
        #expect(admin.run(["users", "unblock", userID]).standardOutput.contains("it already was"))
    }

    /// D08, G09: a new password ends everything the user held; the password rules of `users create` apply.
    @Test func setPasswordReplacesTheHashAndRevokesGrants() throws {
        let app = try admin.createApp()
        let userID = try admin.createUser("pat@example.com", password: "First password here 1")
        let held = try admin.seedHoldings(userID: userID, clientID: app.id)
        let hundred = String(repeating: "Abcde12345", count: 10)
        let result = try admin.json(["users", "set-password", userID, "--password-stdin"], input: hundred + "\n")
        #expect(result["revoked_grants"] as? Int == 1)
        #expect(!(try JSONSerialization.data(withJSONObject: result).contains(Data(hundred.utf8))))
        let hash = try #require(try admin.user(userID)?.passwordHash)
        #expect(hash.hasPrefix("$argon2id$"))
        #expect(PasswordHash.verify(hundred, against: hash))
        #expect(!PasswordHash.verify(String(hundred.prefix(72)), against: hash))
        #expect(!PasswordHash.verify("First password here 1", against: hash))
        try expectRevoked(held)
        let event = try #require(try admin.auditEvents().last)
        #expect(event.event == "users.password_set" && event.actor == "ops" && event.details["revoked_grants"] == "1")
        #expect(!event.details.values.contains { $0.contains("0123456789") })
    }

    @Test(arguments: ["short\n", "password\n", "Password1\n", "\n"])
    func setPasswordRefusesWeakPasswords(input: String) throws {
        let userID = try admin.createUser("weak@example.com")
        let before = try admin.user(userID)?.passwordHash
        let result = admin.run(["users", "set-password", userID, "--password-stdin"], input: input)
        #expect(result.status == 1)
        #expect(result.standardError.contains("too weak") || result.standardError.contains("leaked or common"))
        #expect(try admin.user(userID)?.passwordHash == before)
    }

    @Test func setPasswordNeedsStandardInput() throws {
        let userID = try admin.createUser("stdin@example.com")
        let result = admin.run(["users", "set-password", userID])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--password-stdin is required"))
        #expect(admin.run(["users", "set-password", userID, "--password", "secret123"]).status == 2)
    }

    @Test func deleteRemovesTheUserWithEverythingTheyHeld() throws {
        let app = try admin.createApp()
        let userID = try admin.createUser("gone@example.com")
        let otherID = try admin.createUser("stays@example.com")
        let held = try admin.seedHoldings(userID: userID, clientID: app.id)
        let kept = try admin.seedHoldings(userID: otherID, clientID: app.id)
        let deleted = try admin.json(["users", "delete", "gone@example.com"])
        #expect(deleted["user_id"] as? String == userID && deleted["deleted"] as? Bool == true)
        #expect(try admin.user(userID) == nil)
        for (table, column, key) in [("sessions", "session_id", held.sessionID), ("grants", "grant_id", held.grantID),
                                     ("authorization_codes", "code_hash", held.codeHash), ("refresh_tokens", "token_hash", held.refreshHash)] {
            #expect(try admin.count("SELECT count(*) FROM \(table) WHERE \(column) = ?", [.text(key)]) == 0, "\(table)")
        }
        #expect(try admin.count("SELECT count(*) FROM grants WHERE grant_id = ? AND revoked_at IS NULL", [.text(kept.grantID)]) == 1)
        let event = try #require(try admin.auditEvents().last)
        // The audit log keeps what happened under a pseudonym, neither the id nor the email.
        #expect(event.event == "users.deleted" && event.userID?.hasPrefix("deleted|") == true
            && event.details == ["upstream_revocations_queued": "0"])
        #expect(try admin.auditEvents().allSatisfy { $0.userID != userID && !$0.details.values.contains("gone@example.com") })
        // The email is free again.
        #expect(admin.run(["users", "create", "--email", "GONE@example.com", "--password-stdin"], input: "Another password 5\n").status == 0)
    }

    @Test func showPrintsTheWholeProfileButNeverTheHash() throws {
        let userID = try admin.createUser("show@example.com")
        let json = try admin.json(["users", "show", userID])
        #expect(Set(json.keys) == ["user_id", "email", "email_verified", "name", "given_name", "family_name", "nickname", "picture",
                                   "created_at", "updated_at", "blocked", "logins_count", "last_login_at", "has_password", "sign_in_locks",
                                   "connection", "identities"])
        let text = admin.run(["users", "show", userID]).standardOutput
        #expect(text.contains("blocked:") && !text.contains("$argon2id$"))
    }

    @Test func everyUserCommandHasHelpAndJSON() {
        for command in UserCommands.all {
            #expect(command.switchFlags.contains("--json"))
            #expect(AdminCLI.run(command.path + ["--help"], environment: [:]).standardOutput.contains("Usage: idp-admin \(command.usage)"))
        }
    }

    private func expectRevoked(_ held: AdminHarness.Holdings, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try admin.count("SELECT count(*) FROM grants WHERE grant_id = ? AND revoked_at IS NOT NULL", [.text(held.grantID)]) == 1,
                sourceLocation: sourceLocation)
        #expect(try admin.count("SELECT count(*) FROM refresh_tokens WHERE token_hash = ? AND revoked_at IS NOT NULL", [.text(held.refreshHash)]) == 1,
                sourceLocation: sourceLocation)
        #expect(try admin.count("SELECT count(*) FROM sessions WHERE session_id = ? AND ended_at IS NOT NULL", [.text(held.sessionID)]) == 1,
                sourceLocation: sourceLocation)
        #expect(try admin.count("SELECT count(*) FROM authorization_codes WHERE code_hash = ?", [.text(held.codeHash)]) == 0,
                sourceLocation: sourceLocation)
    }
}
