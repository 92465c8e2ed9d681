import Crypto
import Foundation
import KeyManagement
import Model
import OIDC
import Settings
import Storage

/// `idp-admin users list | show | create | update | block | unblock | set-password | delete | import`.
enum UserCommands {
    static let all = [list, show, create, update, block, unblock, setPassword, delete, UserImport.command]

    /// The password rules the daemon applies to signup and reset (`password_policy`, `password_blocklist`).
    static func passwordRules(_ settings: Settings) -> PasswordRules {
        let text = (try? String(contentsOfFile: settings.passwordBlocklist, encoding: .utf8)) ?? ""
        return PasswordRules(policy: PasswordPolicy(rawValue: settings.passwordPolicy) ?? .fair, blocklist: PasswordBlocklist(listText: text))
    }

    static let create = Command(
        ["users", "create"],
        summary: "Create a user with a password read from standard input.",
        usage: "users create --email EMAIL [--name NAME] [--email-verified] --password-stdin [--json]",
        details: """
            The password is read from standard input (one trailing newline is removed), never from arguments:
              printf '%s\\n' "$PASSWORD" | idp-admin users create --email ada@example.com --password-stdin
            It must pass `password_policy` (default fair: at least 8 characters with a lower-case letter, an
            upper-case letter and a digit) and not be on `password_blocklist`; it is stored only as an Argon2id hash. Emails are unique regardless of case. The user id (the `sub` claim) has Auth0's
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
            if let problem = passwordProblem(password, email: email, settings: try invocation.settings()) { throw AdminError.failed(problem) }

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
        usage: "users list [--email-contains TEXT] [--take N] [--from USER_ID] [--json]",
        details: """
            --email-contains matches case-insensitively. Pages of --take users (default 100; --limit is the same),
            oldest first; --from USER_ID starts after that user: pass the last user id of a page to get the next.
            A full page ends with the command for the next one.
            """,
        valueFlags: ["--email-contains", "--limit", "--take", "--from"],
        run: { invocation in
            var limit = 100
            let takeFlag = invocation.arguments.value("--take") != nil ? "--take" : "--limit"
            if let text = invocation.arguments.value(takeFlag) {
                guard let value = Int(text), value > 0 else { throw AdminError.usage("\(takeFlag) must be a positive number, not \(text)") }
                limit = value
            }
            let filter = invocation.arguments.value("--email-contains")
            let from = invocation.arguments.value("--from")
            let store = try invocation.store()
            let userStore = SQLiteUserStore(store: store)
            if let from, try storageFailures({ () throws(StorageError) in try userStore.find(userID: from) }) == nil {
                throw AdminError.failed("--from \(from): no such user id (use the last USER_ID of the previous page)")
            }
            let users = try storageFailures { () throws(StorageError) in
                try userStore.list(emailContaining: filter, after: from, limit: limit)
            }
            var output = Output.table(["USER_ID", "EMAIL", "VERIFIED", "NAME", "CREATED_AT"],
                                      users.map { [$0.userID, $0.email, $0.emailVerified ? "yes" : "no", $0.name ?? "", timestamp($0.createdAt)] },
                                      json: users.map(summary))
            if users.count == limit, let last = users.last {
                output = Output(json: output.json.value, text: output.text + "\n\nnext page: idp-admin users list --from \(last.userID) --take \(limit)")
            }
            return output
        })

    static let show = Command(
        ["users", "show"],
        summary: "Show a user by id or email (never the password hash), with their sign-in locks.",
        usage: "users show USER_ID|EMAIL [--json]",
        positionals: 1...1,
        run: { invocation in
            let store = try invocation.store()
            let user = try existingUser(invocation.arguments.positionals[0], in: SQLiteUserStore(store: store))
            let locks = try activeLocks(of: user, in: store)
            let identities = try storageFailures { () throws(StorageError) in try SQLiteIdentityStore(store: store).list(userID: user.userID) }
            var json = details(user)
            json["sign_in_locks"] = locks.map(\.json)
            json["connection"] = user.connection ?? "database"
            json["identities"] = identities.map { ["connection": $0.connection, "user_id": $0.subject,
                                                    "linked_at": ISO8601DateFormatter().string(from: $0.createdAt)] }
            var text = describeDetails(user)
            text += "\nconnection: \(user.connection ?? "database")"
            text += identities.isEmpty ? "\nidentities: none"
                : "\nidentities:\n" + identities.map { "  \($0.connection) \($0.subject)" }.joined(separator: "\n")
            text += locks.isEmpty ? "\nsign-in locks: none" : "\nsign-in locks:\n" + locks.map { "  " + $0.text }.joined(separator: "\n")
            return Output(json: json, text: text)
        })

    static let update = Command(
        ["users", "update"],
        summary: "Change a user's email or profile; the daemon uses the change at once.",
        usage: "users update USER_ID|EMAIL [--email EMAIL] [--name NAME] [--given-name NAME] [--family-name NAME] [--nickname NAME] [--picture URL] [--email-verified true|false] [--json]",
        details: """
            Only the fields given change; an empty value removes a profile field (--name ""). The email stays
            unique regardless of case. --picture takes an https URL. Passwords are changed with
            `users set-password`, blocking with `users block`. With --json prints the user as `users show` does.
            """,
        valueFlags: ["--email", "--name", "--given-name", "--family-name", "--nickname", "--picture", "--email-verified"],
        positionals: 1...1,
        run: { invocation in
            let arguments = invocation.arguments
            let users = SQLiteUserStore(store: try invocation.store())
            var user = try existingUser(arguments.positionals[0], in: users)
            var changed: [String] = []
            if let email = arguments.value("--email") {
                guard looksLikeEmail(email) else {
                    throw AdminError.failed("--email \(email): not an email address (expected one @ between a name and a domain, no spaces)")
                }
                if let other = try storageFailures({ () throws(StorageError) in try users.find(email: email) }), other.userID != user.userID {
                    throw AdminError.failed("a user with email \(email) already exists (\(other.userID))")
                }
                if email != user.email {
                    // A new address has not been verified, unless the operator says so.
                    if User.emailKey(email) != User.emailKey(user.email) { user.emailVerified = false }
                    user.email = email
                }
                changed.append("email")
            }
            if let value = arguments.value("--email-verified") {
                switch value {
                case "true": user.emailVerified = true
                case "false": user.emailVerified = false
                default: throw AdminError.usage("--email-verified must be true or false, not \(value)")
                }
                changed.append("email_verified")
            }
            func text(_ flag: String) -> String?? {
                guard let value = arguments.value(flag) else { return .none }
                changed.append(String(flag.dropFirst(2)).replacingOccurrences(of: "-", with: "_"))
                let trimmed = value.trimmingCharacters(in: .whitespaces)
                return .some(trimmed.isEmpty ? nil : trimmed)
            }
            if case .some(let value) = text("--name") { user.name = value }
            if case .some(let value) = text("--given-name") { user.givenName = value }
            if case .some(let value) = text("--family-name") { user.familyName = value }
            if case .some(let value) = text("--nickname") { user.nickname = value }
            if case .some(let value) = text("--picture") {
                if let value, let problem = pictureProblem(value) { throw AdminError.failed("--picture \(value): \(problem)") }
                user.picture = value
            }
            guard !changed.isEmpty else { throw AdminError.usage("nothing to change: give at least one of --email, --name, --given-name, --family-name, --nickname, --picture, --email-verified") }
            user.updatedAt = wholeSeconds(Date())
            do {
                try users.update(user)
            } catch StorageError.alreadyExists {
                throw AdminError.failed("a user with email \(user.email) already exists")
            } catch {
                throw AdminError.failed("\(error)")
            }
            try invocation.audit("users.updated", userID: user.userID, details: ["changed": changed.joined(separator: ",")])
            return Output(json: details(user), text: "updated \(changed.joined(separator: ", ")) of \(user.userID)\n\n" + describeDetails(user))
        })

    static let block = Command(
        ["users", "block"],
        summary: "Block a user: refused at login, and everything they hold stops working at once.",
        usage: "users block USER_ID|EMAIL [--json]",
        details: """
            A blocked user cannot sign in, and their pending authorization codes, refresh tokens, access tokens
            (at /userinfo) and browser sessions stop working immediately, also in the running daemon: their
            grants are revoked and sessions ended, so unblocking does not bring those back (the user signs in again).
            """,
        positionals: 1...1,
        run: { invocation in try setBlocked(true, invocation) })

    static let unblock = Command(
        ["users", "unblock"],
        summary: "Unblock a user so they can sign in again, and lift their sign-in locks.",
        usage: "users unblock USER_ID|EMAIL [--json]",
        details: """
            Clears the blocked flag and every brute-force lock and failure count of the account: those of each
            (email, address) pair and the account-wide delay (see `users show`). A lock of a whole address is
            not the account's and stays until it expires.
            """,
        positionals: 1...1,
        run: { invocation in try setBlocked(false, invocation) })

    static let setPassword = Command(
        ["users", "set-password"],
        summary: "Set a user's password from standard input; their sessions and tokens end.",
        usage: "users set-password USER_ID|EMAIL --password-stdin [--json]",
        details: """
            The password is read from standard input (one trailing newline is removed), never from arguments:
              printf '%s\\n' "$PASSWORD" | idp-admin users set-password ada@example.com --password-stdin
            The rules of `users create` apply (`password_policy`, default fair, and `password_blocklist`). The user's sessions end and their grants, refresh tokens, access tokens and pending
            authorization codes are revoked, so every device must sign in again with the new password.
            """,
        switchFlags: ["--password-stdin"],
        positionals: 1...1,
        run: { invocation in
            guard invocation.arguments.has("--password-stdin") else {
                throw AdminError.usage("--password-stdin is required: pipe the password to standard input")
            }
            let users = SQLiteUserStore(store: try invocation.store())
            var user = try existingUser(invocation.arguments.positionals[0], in: users)
            let password = stripOneNewline(invocation.standardInput())
            if let problem = passwordProblem(password, email: user.email, settings: try invocation.settings()) {
                throw AdminError.failed(problem)
            }
            do {
                user.passwordHash = try PasswordHash.hash(password)
            } catch {
                throw AdminError.failed("cannot hash the password: \(error)")
            }
            let now = wholeSeconds(Date())
            user.updatedAt = now
            try storageFailures { () throws(StorageError) in try users.update(user) }
            let revoked = try storageFailures { () throws(StorageError) in
                try users.revokeAccess(userID: user.userID, at: now, reason: "password_changed")
            }
            try invocation.audit("users.password_set", userID: user.userID, details: revokedDetails(revoked))
            return Output(json: ["user_id": user.userID, "password_set": true, "revoked_grants": revoked.grants, "ended_sessions": revoked.sessions],
                          text: "set the password of \(user.email) (\(user.userID)); revoked \(revoked.grants) grant(s), ended \(revoked.sessions) session(s)")
        })

    static let delete = Command(
        ["users", "delete"],
        summary: "Delete a user with their sessions, codes, grants and tokens; revoke their Apple tokens.",
        usage: "users delete USER_ID|EMAIL [--yes] [--json]",
        details: """
            Removes the user, their sessions, pending authorization codes, grants, refresh tokens, identities,
            one-time codes and queued mail; their access tokens are refused from then on. The audit log keeps
            their past events under a pseudonymous id, without their id or email. Each Apple refresh token
            they hold is queued for revocation at Apple, which the daemon sends (and retries) in the
            background (`connections revocations` lists the queue). Cannot be undone.
            """,
        positionals: 1...1,
        run: { invocation in
            let store = try invocation.store()
            // Commits leave copying the WAL back to a checkpoint thread, as the daemon's do, so no
            // batch's commit runs a checkpoint (Database+Checkpoints.swift).
            try DatabaseCommands.mapErrors { try store.sqlite?.startBackgroundCheckpoints() }
            let users = SQLiteUserStore(store: store)
            let user = try existingUser(invocation.arguments.positionals[0], in: users)
            try invocation.confirm("Delete the user \(user.email) (\(user.userID)) with their sessions and tokens? This cannot be undone.")
            let deleted: DeletedAccount
            let holds: WriteHolds
            do {
                let manager = try KeyManager.open(store: store, settings: invocation.settings())
                (deleted, holds) = try SQLiteAccountDeletion(store: store, tokenKey: manager.derivedKey(purpose: UpstreamTokenKey.purpose),
                                                             pseudonymKey: manager.derivedKey(purpose: AuditPseudonymKey.purpose))
                    .deleteAccountTimed(userID: user.userID, at: Date())
            } catch StorageError.notFound {
                throw AdminError.failed("no user with id or email \(invocation.arguments.positionals[0])")
            } catch let error as KeyError {
                throw AdminError.failed(error.description)
            } catch {
                throw AdminError.failed("\(error)")
            }
            try invocation.audit("users.deleted", userID: deleted.pseudonym,
                                 details: ["upstream_revocations_queued": String(deleted.revocationsQueued)])
            let queued = deleted.revocationsQueued == 0 ? "" : "; \(deleted.revocationsQueued) Apple token(s) queued for revocation"
            return Output(json: ["user_id": user.userID, "email": user.email, "deleted": true,
                                 "upstream_revocations_queued": deleted.revocationsQueued, "write_transactions": holds.transactions,
                                 "longest_write_lock_ms": WriteHolds.milliseconds(holds.longest)],
                          text: "deleted user \(user.email) (\(user.userID))" + queued)
        })

    private static func setBlocked(_ blocked: Bool, _ invocation: Invocation) throws -> Output {
        let users = SQLiteUserStore(store: try invocation.store())
        var user = try existingUser(invocation.arguments.positionals[0], in: users)
        let now = wholeSeconds(Date())
        let wasBlocked = user.blocked
        user.blocked = blocked
        user.updatedAt = now
        try storageFailures { () throws(StorageError) in try users.update(user) }
        var auditDetails: [String: String] = ["email": user.email]
        var json: [String: Any] = ["user_id": user.userID, "email": user.email, "blocked": blocked]
        var text = "\(blocked ? "blocked" : "unblocked") \(user.email) (\(user.userID))"
        if !blocked {
            let throttle = SQLiteLoginThrottleStore(store: try invocation.store())
            let lifted = try storageFailures { () throws(StorageError) in
                try throttle.clear(withPrefixes: LoginThrottle.accountKeyPrefixes(email: user.email))
            }
            json["lifted_locks"] = lifted
            auditDetails["lifted_locks"] = String(lifted)
            if wasBlocked == blocked, lifted == 0 { text += "; it already was" }
            if lifted > 0 { text += "; lifted \(lifted) sign-in lock(s)" }
        } else if wasBlocked == blocked {
            text += "; it already was"
        }
        if blocked {
            let revoked = try storageFailures { () throws(StorageError) in
                try users.revokeAccess(userID: user.userID, at: now, reason: "user_blocked")
            }
            auditDetails.merge(revokedDetails(revoked)) { $1 }
            json["revoked_grants"] = revoked.grants
            json["ended_sessions"] = revoked.sessions
            text += "; revoked \(revoked.grants) grant(s), ended \(revoked.sessions) session(s)"
        }
        try invocation.audit(blocked ? "users.blocked" : "users.unblocked", userID: user.userID, details: auditDetails)
        return Output(json: json, text: text)
    }

    /// A brute-force lock or failure count of the account, as `users show` prints it.
    struct SignInLock {
        let scope: String
        let address: String?
        let failures: Int
        let lockedUntil: Date?
        var json: [String: Any] {
            var object: [String: Any] = ["scope": scope, "failures": failures]
            object["address"] = address
            object["locked_until"] = lockedUntil.map(timestamp)
            return object
        }
        var text: String {
            let place = address.map { "from \($0)" } ?? "from any address"
            let lock = lockedUntil.map { "locked until \(timestamp($0))" } ?? "not locked"
            return "\(scope) \(place): \(failures) failure(s), \(lock)"
        }
    }

    static func activeLocks(of user: User, in store: any GatehouseStorage) throws -> [SignInLock] {
        let states = try storageFailures { () throws(StorageError) in
            try SQLiteLoginThrottleStore(store: store).states(withPrefixes: LoginThrottle.accountKeyPrefixes(email: user.email))
        }
        let now = Date()
        return states.map { state in
            let address = state.key.split(separator: "|", maxSplits: 1).dropFirst().first.map(String.init)
            return SignInLock(scope: address == nil ? "account" : "email+address", address: address, failures: state.failures,
                              lockedUntil: state.lockedUntil.flatMap { $0 > now ? $0 : nil })
        }
    }

    private static func revokedDetails(_ revoked: SQLiteUserStore.RevokedAccess) -> [String: String] {
        ["revoked_grants": String(revoked.grants), "ended_sessions": String(revoked.sessions), "deleted_codes": String(revoked.codes)]
    }

    /// The user with this id, or this email (case-insensitively).
    static func existingUser(_ key: String, in users: SQLiteUserStore) throws -> User {
        let found = try storageFailures { () throws(StorageError) -> User? in
            if let user = try users.find(userID: key) { return user }
            return key.contains("@") ? try users.find(email: key) : nil
        }
        guard let user = found else { throw AdminError.failed("no user with id or email \(key)") }
        return user
    }

    /// Why `url` is not acceptable as a profile picture, or nil.
    static func pictureProblem(_ url: String) -> String? {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "https",
              let host = components.host, !host.isEmpty else {
            return "a picture is an absolute https URL"
        }
        return nil
    }

    /// Everything about a user but the password hash.
    static func details(_ user: User) -> [String: Any] {
        var json = summary(user)
        json["given_name"] = user.givenName ?? NSNull()
        json["family_name"] = user.familyName ?? NSNull()
        json["nickname"] = user.nickname ?? NSNull()
        json["picture"] = user.picture ?? NSNull()
        json["updated_at"] = timestamp(user.updatedAt)
        json["blocked"] = user.blocked
        json["logins_count"] = user.loginsCount
        json["last_login_at"] = user.lastLoginAt.map(timestamp) ?? NSNull()
        json["has_password"] = user.passwordHash != nil
        return json
    }

    static func describeDetails(_ user: User) -> String {
        describe(user) + """

            given_name:      \(user.givenName ?? "(none)")
            family_name:     \(user.familyName ?? "(none)")
            nickname:        \(user.nickname ?? "(none)")
            picture:         \(user.picture ?? "(none)")
            blocked:         \(user.blocked ? "yes" : "no")
            has_password:    \(user.passwordHash != nil ? "yes" : "no")
            logins_count:    \(user.loginsCount)
            last_login_at:   \(user.lastLoginAt.map(timestamp) ?? "never")
            """
    }

    /// Auth0's user id shape, as signup makes it (`SelfService.newUserID`).
    static func newUserID() -> String { SelfService.newUserID() }

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
    /// Why the configured rules refuse `password`, as `password_policy` says; nil when it may be used.
    static func passwordProblem(_ password: String, email: String?, settings: Settings) -> String? {
        guard let refusal = passwordRules(settings).refusal(password, email: email) else { return nil }
        return refusal.code == "password_leaked" ? "the password is on the list of leaked or common passwords; choose another"
            : "the password is too weak for password_policy = \(settings.passwordPolicy): " + refusal.description
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
