import Foundation
import Model
import Testing
import TestSupport
@testable import Admin

/// `apps create|update --allow-session-transfer on|off --accept-session-transfer … --session-transfer-binding ip|none`
/// (README "Native to web"): stored in SQLite (migration 0013), shown by `apps show`, named in help.
@Suite struct AppSessionTransferTests {
    let admin: AdminHarness

    init() throws { admin = try AdminHarness("admin-apps-transfer") }

    @Test func offByDefaultThenEachSideSetAndShown() throws {
        let native = try admin.createApp("native", callbacks: "com.example.app://id.example.com/ios/com.example.app/callback")
        #expect(try admin.client(native.id)?.sessionTransfer == SessionTransferPolicy())
        let defaults = try admin.json(["apps", "show", native.id])
        #expect(defaults["allow_session_transfer"] as? Bool == false && defaults["accept_session_transfer"] as? String == "off"
                && defaults["session_transfer_binding"] as? String == "ip")

        let updated = try admin.json(["apps", "update", native.id, "--allow-session-transfer", "on", "--session-transfer-binding", "none"])
        #expect(updated["allow_session_transfer"] as? Bool == true && updated["session_transfer_binding"] as? String == "none")
        #expect(try admin.client(native.id)?.sessionTransfer == SessionTransferPolicy(allowIssue: true, binding: .none))

        let web = try admin.createApp("spa", callbacks: "https://web.example.com/cb", extra: ["--accept-session-transfer", "query,cookie"])
        #expect(try admin.client(web.id)?.sessionTransfer.accept == [.cookie, .query])
        #expect(try admin.json(["apps", "show", web.id])["accept_session_transfer"] as? String == "cookie,query")
        for (value, channels) in [("cookie", SessionTransferPolicy.Channels.cookie), ("query", .query), ("off", [])] {
            _ = try admin.json(["apps", "update", web.id, "--accept-session-transfer", value])
            #expect(try admin.client(web.id)?.sessionTransfer.accept == channels)
        }
        let text = admin.run(["apps", "show", web.id])
        #expect(text.standardOutput.contains("accept_session_transfer: off"))
    }

    @Test(arguments: [
        (["--allow-session-transfer", "yes"], "--allow-session-transfer must be on or off (true or false), not yes"),
        (["--accept-session-transfer", "header"], "--accept-session-transfer must be cookie,query, cookie, query or off, not header"),
        (["--accept-session-transfer", "cookie,off"], "--accept-session-transfer must be cookie,query, cookie, query or off, not cookie,off"),
        (["--accept-session-transfer", ""], "--accept-session-transfer must be cookie,query, cookie, query or off, not "),
        (["--session-transfer-binding", "asn"], "--session-transfer-binding must be ip or none, not asn"),
    ])
    func badValuesAreUsageErrorsAndChangeNothing(flags: [String], message: String) throws {
        let app = try admin.createApp("spa", callbacks: "https://web.example.com/cb")
        let before = try #require(try admin.client(app.id))
        let result = admin.run(["apps", "update", app.id] + flags)
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(try admin.client(app.id) == before)
    }

    @Test func allowingWithoutTheRefreshGrantWarnsAndHelpNamesTheFlags() throws {
        let app = try admin.createApp("native", callbacks: "com.example.app://id.example.com/ios/com.example.app/callback",
                                      extra: ["--grants", "authorization_code"])
        let result = admin.run(["apps", "update", app.id, "--allow-session-transfer", "on"])
        #expect(result.status == 0 && result.standardError.contains("has no refresh_token grant"), "\(result.standardError)")
        let help = admin.run(["apps", "update", "--help"])
        for flag in ["--allow-session-transfer on|off", "--accept-session-transfer cookie,query|cookie|query|off",
                     "--session-transfer-binding ip|none"] {
            #expect(help.standardOutput.contains(flag), "\(flag)")
        }
    }
}
