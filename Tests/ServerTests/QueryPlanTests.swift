import Crypto
import Foundation
import Model
import SQLite
import Storage
import Testing
import TestSupport

/// Every statement the request paths and the operator's paging run is an index lookup: a real
/// workload runs through the daemon's routes, then each SQL text the connections cached is
/// explained (`EXPLAIN QUERY PLAN`) and a full scan of a table that grows with users fails the
/// test. Small configuration tables may be scanned; so may an ordered walk that stops at its
/// `LIMIT` (no sort of the whole table).
@Suite("Query plans of the hot paths")
struct QueryPlanTests {
    /// Tables that grow with users, sessions and tokens.
    static let growingTables: Set<String> = [
        "users", "sessions", "grants", "refresh_tokens", "authorization_codes", "login_transactions", "login_throttle",
        "audit_events", "one_time_codes", "mail_outbox", "identities", "password_history", "deleted_user_refresh_tokens",
        "revoked_access_tokens", "revoked_grants", "session_transfer_tokens",
    ]
    static let callback = "com.example.app://id.example.com/ios/com.example.app/callback"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let strong = "Tr0ubadour-horse"

    @Test func noHotStatementScansAGrowingTable() throws {
        let mail = MemoryMailQueue()
        let harness = try RouteHarness(mail: mail)
        try SQLiteClientStore(store: harness.store).create(Client(
            clientID: "app", name: "Notes", type: .native,
            grantTypes: [.authorizationCode, .refreshToken, .passwordRealm, .passwordlessOTP], callbacks: [Self.callback],
            signupEnabled: true, createdAt: Date(),
            sessionTransfer: SessionTransferPolicy(allowIssue: true, accept: [.cookie, .query])))
        try workload(harness, mail: mail)

        var failures: [String] = []
        let texts = harness.store.database.cachedStatementTexts()
        #expect(texts.count > 40, "the workload ran too little to judge: \(texts.count) statements")
        // Application changes are rare configuration (idp-admin apps create|update|delete), left out here.
        for sql in texts.sorted() where Self.isExplainable(sql) && !sql.contains("INTO clients") && !sql.contains("UPDATE clients") {
            let plan = try harness.store.database.withReader { connection in
                try connection.query("EXPLAIN QUERY PLAN " + sql, Array(repeating: .null, count: Self.parameterCount(sql)))
                    .map { try $0.string("detail") }
            }
            let sorts = plan.contains { $0.contains("TEMP B-TREE") }
            for detail in plan where detail.hasPrefix("SCAN ") {
                let table = String(detail.split(separator: " ")[1])
                guard Self.growingTables.contains(table) else { continue }
                if sql.contains("LIMIT") && !sorts { continue }
                failures.append("\(detail)\n    in: \(sql.split(whereSeparator: \.isNewline).joined(separator: " "))")
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// Sign-ins, tokens, account requests and the operator's paging, once each.
    func workload(_ harness: RouteHarness, mail: MemoryMailQueue) throws {
        #expect(harness.postJSON("/dbconnections/signup", ["email": "ada@example.com", "password": Self.strong,
                                                          "connection": "Username-Password-Authentication", "client_id": "app"]).status == 200)
        // The browser sign-in, hop by hop, and the code exchange.
        let page = harness.get("/authorize?client_id=app&response_type=code&redirect_uri=\(RouteHarness.encode(Self.callback))"
                               + "&state=s&nonce=n&scope=openid%20profile%20offline_access&code_challenge=\(Self.challenge)&code_challenge_method=S256")
        let tx = try #require(HTMLForm.value(of: "tx", in: page.text))
        let csrf = try #require(HTMLForm.value(of: "csrf_token", in: page.text))
        _ = harness.post("/login", form: [("tx", tx), ("csrf_token", csrf), ("action", "login"), ("email", "ada@example.com"), ("password", "wrong")])
        let signedIn = harness.post("/login", form: [("tx", tx), ("csrf_token", csrf), ("action", "login"), ("email", "ada@example.com"),
                                                     ("password", Self.strong)])
        let resume = try #require(signedIn.location)
        let back = harness.get(resume)
        let location = try #require(back.location)
        let code = try #require(queryParameters(of: location)["code"])
        let tokens = harness.postJSON("/oauth/token", ["grant_type": "authorization_code", "client_id": "app", "code": code,
                                                       "code_verifier": Self.verifier, "redirect_uri": Self.callback]).json
        let refresh = try #require(tokens["refresh_token"] as? String)
        let access = try #require(tokens["access_token"] as? String)
        let rotated = harness.postJSON("/oauth/token", ["grant_type": "refresh_token", "client_id": "app", "refresh_token": refresh]).json
        _ = harness.postJSON("/oauth/token", ["grant_type": "refresh_token", "client_id": "app", "refresh_token": refresh])  // reuse
        _ = harness.get("/userinfo", headers: [("Authorization", "Bearer " + access)])
        // SSO: a second authorize with the session.
        _ = harness.get("/authorize?client_id=app&response_type=code&redirect_uri=\(RouteHarness.encode(Self.callback))"
                        + "&state=s2&scope=openid&code_challenge=\(Self.challenge)&code_challenge_method=S256")
        let grant = harness.postJSON("/oauth/token", [
            "grant_type": "http://auth0.com/oauth/grant-type/password-realm", "username": "ada@example.com", "password": Self.strong,
            "realm": "Username-Password-Authentication", "client_id": "app", "audience": harness.issuer + "api/v2/",
            "scope": "openid offline_access read:current_user update:current_user_metadata"]).json
        let management = try #require(grant["access_token"] as? String)
        let user = try #require(try SQLiteUserStore(store: harness.store).find(email: "ada@example.com"))
        _ = harness.get("/api/v2/users/" + RouteHarness.encode(user.userID), headers: [("Authorization", "Bearer " + management)])
        _ = harness.send("PATCH", "/api/v2/users/" + RouteHarness.encode(user.userID),
                         headers: [("Authorization", "Bearer " + management), ("Content-Type", "application/json")],
                         body: Array(#"{"user_metadata":{"a":"b"}}"#.utf8), from: "198.51.100.7")
        _ = harness.postJSON("/passwordless/start", ["email": "ada@example.com", "connection": "email", "send": "code", "client_id": "app"])
        if let otp = mail.last(to: "ada@example.com")?.values["code"] {
            _ = harness.postJSON("/oauth/token", ["grant_type": "http://auth0.com/oauth/grant-type/passwordless/otp", "realm": "email",
                                                  "username": "ada@example.com", "otp": otp, "client_id": "app", "scope": "openid"])
        }
        _ = harness.postJSON("/dbconnections/change_password", ["email": "ada@example.com", "connection": "Username-Password-Authentication",
                                                                "client_id": "app"])
        if let link = mail.last(to: "ada@example.com")?.values["link"] {
            let ticket = String(link.split(separator: "=", maxSplits: 1)[1])
            _ = harness.get("/reset-password?ticket=" + ticket)
            _ = harness.post("/reset-password", form: [("ticket", ticket), ("password", "N3w-password-here")])
        }
        if let next = rotated["refresh_token"] as? String {
            // Native to web: the transfer token, redeemed by a fresh web view, then the parent revoked.
            let transfer = harness.postJSON("/oauth/token", ["grant_type": "refresh_token", "client_id": "app", "refresh_token": next,
                                                             "audience": "urn:id.example.com:session_transfer"]).json
            harness.clearCookies()
            _ = harness.get("/authorize?client_id=app&response_type=code&redirect_uri=\(RouteHarness.encode(Self.callback))"
                            + "&state=s3&scope=openid&code_challenge=\(Self.challenge)&code_challenge_method=S256"
                            + "&session_transfer_token=" + ((transfer["access_token"] as? String) ?? ""))
            _ = harness.postJSON("/oauth/revoke", ["token": (transfer["refresh_token"] as? String) ?? next, "client_id": "app"])
        }
        _ = harness.get("/v2/logout?client_id=app")
        harness.routes.flushAudit()

        // The operator's pages and counts.
        let users = SQLiteUserStore(store: harness.store)
        let first = try users.list(limit: 1)
        _ = try users.list(after: first.first?.userID, limit: 10)
        _ = try AuditStore(store: harness.store).tail(limit: 10, userID: user.userID)
        _ = try AuditStore(store: harness.store).tail(limit: 10)
        _ = try AuditStore(store: harness.store).events(after: 0, userID: user.userID)
        _ = try SQLiteSessionStore(store: harness.store).liveCount(at: Date())
        try users.delete(userID: user.userID)
    }

    /// How many values the statement binds: the highest `?N`, or the number of bare `?`.
    static func parameterCount(_ sql: String) -> Int {
        let characters = Array(sql)
        var numbered = 0, bare = 0, index = 0
        while index < characters.count {
            if characters[index] == "?" {
                var digits = ""
                var next = index + 1
                while next < characters.count, characters[next].isNumber { digits.append(characters[next]); next += 1 }
                if let number = Int(digits) { numbered = max(numbered, number) } else { bare += 1 }
                index = next
            } else {
                index += 1
            }
        }
        return max(numbered, bare)
    }

    /// Statements worth a plan: the data ones (not PRAGMA, transactions or schema).
    static func isExplainable(_ sql: String) -> Bool {
        let head = sql.trimmingCharacters(in: .whitespacesAndNewlines).prefix(7).uppercased()
        return ["SELECT ", "INSERT ", "UPDATE ", "DELETE ", "WITH "].contains { head.hasPrefix($0.trimmingCharacters(in: .whitespaces) + " ") || head.hasPrefix($0) }
    }
}
