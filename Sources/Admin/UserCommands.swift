import Crypto
import Foundation
import Model
import Storage

/// `idp-admin users create | list | show`.
enum UserCommands {
    static let all = [create, list, show]

    static let minimumPasswordLength = 8

    /// Passwords so common that a credential-stuffing list tries them first (negative-tests G09).
    static let commonPasswords: Set<String> = [
        "password", "password1", "password123", "passw0rd", "12345678", "123456789", "1234567890", "87654321",
        "11111111", "00000000", "qwertyuiop", "qwerty123", "qwertyui", "iloveyou", "letmein1", "sunshine",
        "football", "baseball", "princess", "superman", "trustno1", "abcdefgh", "abc12345", "welcome1", "admin123",
        "changeme",
    ]

    static let create = Command(
        ["users", "create"],
        summary: "Create a user with a password read from standard input.",
        usage: "users create --email EMAIL [--name NAME] [--email-verified] --password-stdin [--json]",
        details: """
            The password is read from standard input (one trailing newline is removed), never from arguments:
              printf '%s\\n' "$PASSWORD" | idp-admin users create --email ada@example.com --password-stdin
            It must have at least 8 characters and not be a well-known common password; it is stored only
            as an scrypt hash. Emails are unique regardless of case. The user id (the `sub` claim) has Auth0's
            shape, auth0|<24 hex digits>.
            """,
        valueFlags: ["--email", "--name"],
        switchFlags: ["--email-verified", "--password-stdin"],
        run: { invocation in
            guard let email = invocation.arguments.value("--email") else { throw AdminError.usage("--email is required") }
            guard invocation.arguments.has("--password-stdin") else {
                throw AdminError.usage("--password-stdin is required: pipe the password to standard input")
            }
            guard looksLikeEmail(email) else {
                throw AdminError.failed("--email \(email): not an email address (expected one @ between a name and a domain, no spaces)")
            }
            let password = stripOneNewline(invocation.standardInput())
            if let problem = passwordProblem(password) { throw AdminError.failed(problem) }

            let store = try invocation.store()
            let users = SQLiteUserStore(store: store)
            if try storageFailures({ () throws(StorageError) in try users.find(email: email) }) != nil {
                throw AdminError.failed("a user with email \(email) already exists")
            }
            let hash: String
            do {
                hash = try PasswordHash.hash(password)
            } catch {
                throw AdminError.failed("cannot hash the password: \(error)")
            }
            let name = invocation.arguments.value("--name").flatMap { $0.isEmpty ? nil : $0 }
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let user = User(userID: newUserID(), email: email, emailVerified: invocation.arguments.has("--email-verified"),
                            passwordHash: hash, name: name, createdAt: now)
            do {
                try users.create(user)
            } catch StorageError.alreadyExists {
                throw AdminError.failed("a user with email \(email) already exists")
            } catch {
                throw AdminError.failed("\(error)")
            }
            try invocation.audit("users.created", userID: user.userID, details: ["email": user.email])
            return Output(json: summary(user), text: describe(user))
        })

    static let list = Command(
        ["users", "list"],
        summary: "List users, oldest first.",
        usage: "users list [--email-contains TEXT] [--limit N] [--json]",
        details: "--email-contains matches case-insensitively. --limit defaults to 100.",
        valueFlags: ["--email-contains", "--limit"],
        run: { invocation in
            var limit = 100
            if let text = invocation.arguments.value("--limit") {
                guard let value = Int(text), value > 0 else { throw AdminError.usage("--limit must be a positive number, not \(text)") }
                limit = value
            }
            let filter = invocation.arguments.value("--email-contains")
            let store = try invocation.store()
            let users = try storageFailures { () throws(StorageError) in
                try SQLiteUserStore(store: store).list(emailContaining: filter, limit: limit)
            }
            return Output.table(["USER_ID", "EMAIL", "VERIFIED", "NAME", "CREATED_AT"],
                                users.map { [$0.userID, $0.email, $0.emailVerified ? "yes" : "no", $0.name ?? "", timestamp($0.createdAt)] },
                                json: users.map(summary))
        })

    static let show = Command(
        ["users", "show"],
        summary: "Show a user by id or email (never the password hash).",
        usage: "users show USER_ID|EMAIL [--json]",
        positionals: 1...1,
        run: { invocation in
            let key = invocation.arguments.positionals[0]
            let users = SQLiteUserStore(store: try invocation.store())
            let found = try storageFailures { () throws(StorageError) -> User? in
                if let user = try users.find(userID: key) { return user }
                return key.contains("@") ? try users.find(email: key) : nil
            }
            guard let user = found else { throw AdminError.failed("no user with id or email \(key)") }
            var json = summary(user)
            json["updated_at"] = timestamp(user.updatedAt)
            json["blocked"] = user.blocked
            json["logins_count"] = user.loginsCount
            json["last_login_at"] = user.lastLoginAt.map(timestamp) ?? NSNull()
            json["has_password"] = user.passwordHash != nil
            let text = describe(user) + "\nblocked:         \(user.blocked ? "yes" : "no")\nlogins_count:    \(user.loginsCount)"
                + "\nlast_login_at:   \(user.lastLoginAt.map(timestamp) ?? "never")"
            return Output(json: json, text: text)
        })

    /// `auth0|` and 24 random hex digits: Auth0's user id shape, used as the `sub` claim.
    static func newUserID() -> String {
        "auth0|" + Random.bytes(12).map { String(format: "%02x", $0) }.joined()
    }

    /// Removes exactly one trailing `\n` or `\r\n` (what `echo` or a heredoc adds), nothing else.
    static func stripOneNewline(_ text: String) -> String {
        var scalars = Array(text.unicodeScalars)
        if scalars.last == "\n" {
            scalars.removeLast()
            if scalars.last == "\r" { scalars.removeLast() }
        }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        return String(result)
    }

    /// Why `password` is refused, or nil.
    static func passwordProblem(_ password: String) -> String? {
        if password.count < minimumPasswordLength {
            return "the password is too short: at least \(minimumPasswordLength) characters are required"
        }
        if commonPasswords.contains(password.lowercased()) {
            return "the password is one of the most common passwords; choose another"
        }
        return nil
    }

    /// One `@` between a non-empty local part and a non-empty domain, no whitespace.
    static func looksLikeEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty
            && !email.contains(where: { $0.isWhitespace || $0.isNewline })
    }

    static func summary(_ user: User) -> [String: Any] {
        ["user_id": user.userID, "email": user.email, "email_verified": user.emailVerified,
         "name": user.name ?? NSNull(), "created_at": timestamp(user.createdAt)]
    }

    private static func describe(_ user: User) -> String {
        """
        user_id:         \(user.userID)
        email:           \(user.email)
        email_verified:  \(user.emailVerified ? "yes" : "no")
        name:            \(user.name ?? "(none)")
        created_at:      \(timestamp(user.createdAt))
        """
    }
}
