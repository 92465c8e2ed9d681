import Foundation
import Model
import SQLite
import Storage
import Testing
import TestSupport
@testable import Admin

/// One database in a temporary directory and `idp-admin` run in-process against it, as operator `ops`.
struct AdminHarness {
    let directory: TemporaryDirectory
    var environment: [String: String]

    /// `initialize`: create the database with `db init`, as an operator must before any other command.
    init(_ label: String, initialize: Bool = true) throws {
        directory = try TemporaryDirectory(label)
        environment = ["IDP_DATABASE": directory.file("idp.sqlite3"), "SUDO_USER": "ops"]
        if initialize {
            let result = run(["db", "init"])
            #expect(result.status == 0, "db init: \(result.standardError)")
        }
    }

    var databasePath: String { environment["IDP_DATABASE"]! }

    /// In-process, never reading this machine's /etc/gatehouse/idp.conf.
    func run(_ words: [String], input: String = "", terminal: Terminal? = nil) -> AdminCLI.Result {
        AdminCLI.run(words, environment: environment, readInput: { input }, terminal: terminal, systemConfigPath: nil)
    }

    /// Runs a command that must succeed and returns its JSON object.
    func json(_ words: [String], input: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let result = run(words + ["--json"], input: input)
        #expect(result.status == 0, "\(words): \(result.standardError)", sourceLocation: sourceLocation)
        return try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any],
                            sourceLocation: sourceLocation)
    }

    func jsonArray(_ words: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let result = run(words + ["--json"])
        #expect(result.status == 0, "\(words): \(result.standardError)", sourceLocation: sourceLocation)
        return try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]],
                            sourceLocation: sourceLocation)
    }

    func withStore<T>(_ body: (Store) throws -> T) throws -> T {
        let store = try Store(path: databasePath)
        defer { store.close() }
        return try body(store)
    }

    func client(_ clientID: String) throws -> Client? {
        try withStore { try SQLiteClientStore(store: $0).find(clientID: clientID) }
    }

    func user(_ key: String) throws -> User? {
        try withStore { store in
            let users = SQLiteUserStore(store: store)
            return try users.find(userID: key) ?? users.find(email: key)
        }
    }

    func auditEvents(limit: Int = 100) throws -> [AuditEvent] {
        try withStore { try AuditStore(store: $0).tail(limit: limit) }
    }

    /// Creates an app through the CLI; returns its id and secret (nil for public apps).
    func createApp(_ type: String = "regular", callbacks: String = "https://app.example.com/callback",
                   extra: [String] = []) throws -> (id: String, secret: String?) {
        let json = try self.json(["apps", "create", "--name", "App", "--type", type, "--callbacks", callbacks] + extra)
        return (try #require(json["client_id"] as? String), json["client_secret"] as? String)
    }

    /// Creates a user through the CLI; returns the user id.
    func createUser(_ email: String, password: String = "Correct horse battery 7") throws -> String {
        let json = try self.json(["users", "create", "--email", email, "--password-stdin"], input: password + "\n")
        return try #require(json["user_id"] as? String)
    }

    /// What a signed-in user holds with an app: a live session, a grant with a refresh token, and a
    /// pending authorization code, written directly as the daemon would.
    struct Holdings {
        let sessionID: String
        let grantID: String
        let codeHash: String
        let refreshHash: String
    }

    func seedHoldings(userID: String, clientID: String) throws -> Holdings {
        let tag = UUID().uuidString
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let holdings = Holdings(sessionID: "sid-\(tag)", grantID: "grant-\(tag)", codeHash: "code-\(tag)", refreshHash: "rt-\(tag)")
        try withStore { store in
            try SQLiteSessionStore(store: store).create(Session(
                sessionID: holdings.sessionID, cookieHash: "cookie-\(tag)", userID: userID, authTime: now, createdAt: now,
                lastSeenAt: now, expiresAt: now.addingTimeInterval(3600)))
            try SQLiteGrantStore(store: store).create(Grant(
                grantID: holdings.grantID, clientID: clientID, userID: userID, sessionID: holdings.sessionID,
                scope: "openid offline_access", authTime: now, createdAt: now))
            try SQLiteAuthorizationCodeStore(store: store).insert(AuthorizationCode(
                codeHash: holdings.codeHash, clientID: clientID, userID: userID, sessionID: holdings.sessionID,
                redirectURI: "https://app.example.com/callback", scope: "openid", authTime: now, createdAt: now,
                expiresAt: now.addingTimeInterval(60)))
            let stamp = Int64(now.timeIntervalSince1970)
            _ = try store.database.write { connection in
                try connection.run(
                    """
                    INSERT INTO refresh_tokens (token_hash, grant_id, client_id, user_id, scope, issued_at, expires_at, last_used_at,
                        generation)
                    VALUES (?, ?, ?, ?, 'openid offline_access', ?, ?, ?, 0)
                    """,
                    [.text(holdings.refreshHash), .text(holdings.grantID), .text(clientID), .text(userID),
                     .integer(stamp), .integer(stamp + 86_400), .integer(stamp)])
            }
        }
        return holdings
    }

    /// Counts rows matching `sql` (a `SELECT count(*) …` with bindings).
    func count(_ sql: String, _ bindings: [SQLValue] = []) throws -> Int {
        try withStore { store in
            try store.database.read { connection in
                try connection.queryOne(sql, bindings).map { try $0.int(0) } ?? 0
            }
        }
    }
}
