import Foundation
import Model
import Storage
import Testing
import TestSupport
@testable import Admin

/// `idp-admin sessions …` and `tokens revoke` over a database seeded with two devices and two apps.
@Suite struct SessionCommandTests {
    let directory: TemporaryDirectory
    let environment: [String: String]
    static let userID = "auth0|000000000000000000000001"
    static let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))

    init() throws {
        directory = try TemporaryDirectory("admin-sessions")
        environment = ["IDP_DATABASE": directory.file("idp.sqlite3"), "SUDO_USER": "ops"]
        let created = AdminCLI.run(["db", "init"], environment: environment, systemConfigPath: nil)
        #expect(created.status == 0, "db init: \(created.standardError)")
        let store = try Store(path: directory.file("idp.sqlite3"))
        defer { store.close() }
        let now = Self.now
        for clientID in ["app-1", "app-2"] {
            try SQLiteClientStore(store: store).create(Client(clientID: clientID, name: clientID, type: .native, createdAt: now))
        }
        try SQLiteUserStore(store: store).create(User(userID: Self.userID, email: "ada@example.com", createdAt: now))
        let sessions = SQLiteSessionStore(store: store)
        let grants = SQLiteGrantStore(store: store)
        let tokens = SQLiteRefreshTokenStore(store: store)
        // phone: one grant of app-1; laptop: grants of app-1 and app-2.
        for (sessionID, device, clients) in [("sid-phone", "iPhone", ["app-1"]), ("sid-laptop", "Firefox", ["app-1", "app-2"])] {
            try sessions.create(Session(sessionID: sessionID, cookieHash: "cookie-" + sessionID, userID: Self.userID, authTime: now,
                                        createdAt: now, lastSeenAt: now, expiresAt: now + 86_400, deviceName: device, ip: "192.0.2.7"))
            for clientID in clients {
                let grantID = "grant-\(sessionID)-\(clientID)"
                try grants.create(Grant(grantID: grantID, clientID: clientID, userID: Self.userID, sessionID: sessionID,
                                        scope: "openid offline_access", authTime: now, createdAt: now))
                try tokens.insert(RefreshToken(tokenHash: "rt-" + grantID, grantID: grantID, clientID: clientID, userID: Self.userID,
                                               scope: "openid offline_access", issuedAt: now, expiresAt: now + 86_400))
            }
        }
    }

    private func run(_ words: [String]) -> AdminCLI.Result {
        AdminCLI.run(words, environment: environment, readInput: { "" })
    }

    private func json(_ result: AdminCLI.Result) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
    }

    private func withStore<T>(_ body: (Store) throws -> T) throws -> T {
        let store = try Store(path: directory.file("idp.sqlite3"))
        defer { store.close() }
        return try body(store)
    }

    private func tokenRevoked(_ grantID: String) throws -> Bool {
        try withStore { try SQLiteRefreshTokenStore(store: $0).find(tokenHash: "rt-" + grantID)?.revokedAt != nil }
    }

    private func grantRevoked(_ grantID: String) throws -> Bool {
        try withStore { try SQLiteGrantStore(store: $0).find(grantID: grantID)?.revokedAt != nil }
    }

    @Test func listShowsEachDeviceWithItsLiveRefreshTokens() throws {
        let result = run(["sessions", "list", "--user", Self.userID, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let rows = try #require(try json(result) as? [[String: Any]])
        #expect(rows.count == 2)
        let phone = try #require(rows.first { $0["session_id"] as? String == "sid-phone" })
        let laptop = try #require(rows.first { $0["session_id"] as? String == "sid-laptop" })
        #expect(phone["device_name"] as? String == "iPhone" && phone["ip"] as? String == "192.0.2.7")
        #expect(phone["state"] as? String == "live" && phone["live"] as? Bool == true)
        #expect(phone["live_refresh_tokens"] as? Int == 1 && laptop["live_refresh_tokens"] as? Int == 2)
        #expect(phone["created_at"] is String && phone["last_seen_at"] is String && phone["ended_at"] == nil)

        let text = run(["sessions", "list", "--user", Self.userID])
        #expect(text.status == 0)
        #expect(text.standardOutput.contains("SESSION_ID") && text.standardOutput.contains("LIVE_REFRESH_TOKENS"))
        #expect(text.standardOutput.contains("sid-phone") && text.standardOutput.contains("Firefox"))
    }

    @Test func listNeedsAKnownUser() {
        #expect(run(["sessions", "list"]).status == 2)
        let unknown = run(["sessions", "list", "--user", "auth0|nobody"])
        #expect(unknown.status == 1 && unknown.standardError.contains("no user"))
    }

    @Test func revokeEndsOneSessionAndKillsOnlyItsTokens() throws {
        let result = run(["sessions", "revoke", "sid-phone", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let object = try #require(try json(result) as? [String: Any])
        #expect(object["session_id"] as? String == "sid-phone" && object["grants_revoked"] as? Int == 1)
        #expect(try tokenRevoked("grant-sid-phone-app-1") && grantRevoked("grant-sid-phone-app-1"))
        #expect(try !tokenRevoked("grant-sid-laptop-app-1") && !grantRevoked("grant-sid-laptop-app-2"))
        let session = try withStore { try SQLiteSessionStore(store: $0).find(sessionID: "sid-phone") }
        #expect(session?.endedAt != nil)

        let rows = try #require(try json(run(["sessions", "list", "--user", Self.userID, "--json"])) as? [[String: Any]])
        let phone = try #require(rows.first { $0["session_id"] as? String == "sid-phone" })
        #expect(phone["state"] as? String == "ended" && phone["live_refresh_tokens"] as? Int == 0 && phone["ended_at"] is String)

        let events = try withStore { try AuditStore(store: $0).tail(limit: 10, userID: Self.userID) }
        let event = try #require(events.first { $0.event == "sessions.revoked" })
        #expect(event.actor == "ops" && event.details["session_id"] == "sid-phone")

        // Again: harmless. Unknown: exit 1. Missing argument: exit 2.
        #expect(run(["sessions", "revoke", "sid-phone"]).status == 0)
        #expect(run(["sessions", "revoke", "sid-nope"]).status == 1)
        #expect(run(["sessions", "revoke"]).status == 2)
    }

    @Test func revokeAllSignsTheUserOutEverywhere() throws {
        let result = run(["sessions", "revoke-all", "--user", Self.userID, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let object = try #require(try json(result) as? [String: Any])
        #expect(object["sessions_ended"] as? Int == 2 && object["grants_revoked"] as? Int == 3)
        for grantID in ["grant-sid-phone-app-1", "grant-sid-laptop-app-1", "grant-sid-laptop-app-2"] {
            #expect(try tokenRevoked(grantID) && grantRevoked(grantID))
        }
        let rows = try #require(try json(run(["sessions", "list", "--user", Self.userID, "--json"])) as? [[String: Any]])
        #expect(rows.allSatisfy { $0["state"] as? String == "ended" })
    }

    @Test func tokensRevokeForOneAppOrAll() throws {
        let one = run(["tokens", "revoke", "--user", Self.userID, "--app", "app-2", "--json"])
        #expect(one.status == 0, "\(one.standardError)")
        #expect((try json(one) as? [String: Any])?["grants_revoked"] as? Int == 1)
        #expect(try tokenRevoked("grant-sid-laptop-app-2") && !tokenRevoked("grant-sid-laptop-app-1"))
        let session = try withStore { try SQLiteSessionStore(store: $0).find(sessionID: "sid-laptop") }
        #expect(session?.endedAt == nil)   // sessions stay signed in

        #expect(run(["tokens", "revoke", "--user", Self.userID, "--app", "no-such-app"]).status == 1)
        let all = run(["tokens", "revoke", "--user", Self.userID])
        #expect(all.status == 0 && all.standardOutput.contains("revoked 2"))
        #expect(try tokenRevoked("grant-sid-phone-app-1") && tokenRevoked("grant-sid-laptop-app-1"))
    }

    @Test func everyCommandHasHelp() {
        for words in [["sessions", "list"], ["sessions", "revoke"], ["sessions", "revoke-all"], ["tokens", "revoke"]] {
            let help = run(words + ["--help"])
            #expect(help.status == 0 && help.standardOutput.hasPrefix("Usage: idp-admin \(words.joined(separator: " "))"))
        }
    }
}
