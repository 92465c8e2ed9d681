import Crypto
import Foundation
import Model
import Storage
import Testing
import TestSupport

/// What time and history do to account requests: codes expire, a reset is audited, and with a
/// password history the last passwords cannot come back.
@Suite("Account codes over time")
struct AccountCodeLifetimeTests {
    static let strong = "Tr0ubadour-horse"
    let clock = MutableClock(Date())
    let mail = MemoryMailQueue()
    let harness: RouteHarness

    init() throws {
        harness = try RouteHarness(clock: clock, mail: mail) { settings in
            settings.passwordHistory = 2
            settings.codeLifetime = .seconds(600)
        }
        try SQLiteClientStore(store: harness.store).create(Client(
            clientID: "app", name: "Notes", type: .native, grantTypes: [.authorizationCode, .passwordRealm, .passwordlessOTP],
            callbacks: ["com.example.app://cb"], createdAt: Date()))
        try SQLiteUserStore(store: harness.store).create(User(
            userID: "auth0|alice", email: "alice@example.com", emailVerified: true, passwordHash: try PasswordHash.hash(Self.strong),
            createdAt: Date()))
    }

    func otp(_ code: String) -> RouteHarness.Response {
        harness.postJSON("/oauth/token", ["grant_type": "http://auth0.com/oauth/grant-type/passwordless/otp", "realm": "email",
                                          "username": "alice@example.com", "otp": code, "client_id": "app", "scope": "openid"])
    }

    func resetLink() throws -> String {
        _ = harness.postJSON("/dbconnections/change_password", ["email": "alice@example.com", "connection": "Username-Password-Authentication",
                                                                "client_id": "app"])
        let link = try #require(mail.last(to: "alice@example.com")?.values["link"])
        return String(link.split(separator: "=", maxSplits: 1)[1])
    }

    @Test func aCodePastItsLifetimeIsWrong() throws {
        _ = harness.postJSON("/passwordless/start", ["email": "alice@example.com", "connection": "email", "send": "code", "client_id": "app"])
        let code = try #require(mail.last(to: "alice@example.com")?.values["code"])
        #expect(mail.last(to: "alice@example.com")?.values["expires_minutes"] == "10")
        clock.advance(by: 601)
        let late = otp(code)
        #expect(late.status == 400 && late.json["error_description"] as? String == "Wrong email or verification code.")
    }

    @Test func aNewCodeReplacesTheOldOne() throws {
        _ = harness.postJSON("/passwordless/start", ["email": "alice@example.com", "connection": "email", "send": "code", "client_id": "app"])
        let first = try #require(mail.last(to: "alice@example.com")?.values["code"])
        _ = harness.postJSON("/passwordless/start", ["email": "alice@example.com", "connection": "email", "send": "code", "client_id": "app"])
        let second = try #require(mail.last(to: "alice@example.com")?.values["code"])
        if first != second { #expect(otp(first).status == 400) }
        #expect(otp(second).status == 200)
    }

    @Test func anExpiredResetLinkIsGone() throws {
        let ticket = try resetLink()
        clock.advance(by: 601)
        #expect(harness.get("/reset-password?ticket=" + ticket).status == 410)
        #expect(harness.post("/reset-password", form: [("ticket", ticket), ("password", "N3w-password-here")]).status == 410)
    }

    @Test func theLastPasswordsCannotComeBackAndAResetIsAudited() throws {
        let same = harness.post("/reset-password", form: [("ticket", try resetLink()), ("password", Self.strong)])
        #expect(same.status == 400 && same.text.contains("used this password recently"), "\(same.text)")
        #expect(harness.post("/reset-password", form: [("ticket", try resetLink()), ("password", "Second-pass-22")]).status == 200)
        #expect(harness.post("/reset-password", form: [("ticket", try resetLink()), ("password", Self.strong)]).status == 400)
        #expect(harness.post("/reset-password", form: [("ticket", try resetLink()), ("password", "Third-pass-333")]).status == 200)
        #expect(harness.post("/reset-password", form: [("ticket", try resetLink()), ("password", "Second-pass-22")]).status == 400)
        harness.routes.flushAudit()
        let events = try AuditStore(store: harness.store).tail(limit: 50, userID: "auth0|alice").map(\.event)
        #expect(events.filter { $0 == "user.password_reset" }.count == 2, "\(events)")
        #expect(events.contains("user.password_reset_requested"))
    }
}
