import Foundation
import Model
import Testing
import TestSupport
@testable import Admin

/// `apps create|update --logo-url URL --accent-color '#RRGGBB'`: stored in SQLite (migration 0009), checked, removable.
@Suite struct AppBrandingTests {
    let admin: AdminHarness

    init() throws { admin = try AdminHarness("admin-apps-branding") }

    @Test func createStoresNormalisedBrandingAndUpdateRemovesIt() throws {
        let app = try admin.createApp("spa", callbacks: "https://spa.example.com/cb",
                                      extra: ["--logo-url", "https://cdn.example.com/logo.svg", "--accent-color", "#0B57D0"])
        let client = try #require(try admin.client(app.id))
        #expect(client.logoURL == "https://cdn.example.com/logo.svg" && client.accentColor == "#0b57d0")
        let shown = try admin.json(["apps", "show", app.id])
        #expect(shown["logo_url"] as? String == "https://cdn.example.com/logo.svg" && shown["accent_color"] as? String == "#0b57d0")

        _ = try admin.json(["apps", "update", app.id, "--logo-url", "", "--accent-color", ""])
        let after = try #require(try admin.client(app.id))
        #expect(after.logoURL == nil && after.accentColor == nil)
    }

    /// A colour white text cannot be read on (under WCAG AA 4.5:1) is kept, with a warning that the page uses black text.
    @Test func aLightAccentWarnsAboutBlackText() throws {
        let app = try admin.createApp("spa", callbacks: "https://spa.example.com/cb")
        let result = admin.run(["apps", "update", app.id, "--accent-color", "#FFD400"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("contrast of 1.") && result.standardError.contains("black"), "\(result.standardError)")
        #expect(try admin.client(app.id)?.accentColor == "#ffd400")
        let dark = admin.run(["apps", "update", app.id, "--accent-color", "#0b57d0"])
        #expect(dark.status == 0 && !dark.standardError.contains("contrast"), "\(dark.standardError)")
    }

    @Test(arguments: [
        (["--accent-color", "blue"], Int32(2), "--accent-color blue: expected a colour as #RRGGBB"),
        (["--accent-color", "#abc"], Int32(2), "expected a colour as #RRGGBB"),
        (["--accent-color", "#12345g"], Int32(2), "expected a colour as #RRGGBB"),
        (["--accent-color", "#0b57d0;x"], Int32(2), "expected a colour as #RRGGBB"),
        (["--logo-url", "http://cdn.example.com/logo.png"], Int32(1), "use https (plain http only for loopback hosts)"),
        (["--logo-url", "javascript:alert(1)"], Int32(1), "expected an absolute https URL"),
        (["--logo-url", "/logo.png"], Int32(1), "expected an absolute https URL"),
        (["--logo-url", "https://user@cdn.example.com/logo.png"], Int32(1), "expected an absolute https URL"),
        (["--logo-url", "https://cdn.example.com/a logo.png"], Int32(1), "expected an absolute https URL"),
        (["--logo-url", "https://cdn.example.com/logo.png#x"], Int32(1), "expected an absolute https URL"),
    ])
    func badBrandingIsRefusedAndChangesNothing(flags: [String], status: Int32, message: String) throws {
        let app = try admin.createApp("spa", callbacks: "https://spa.example.com/cb")
        let before = try #require(try admin.client(app.id))
        let result = admin.run(["apps", "update", app.id] + flags)
        #expect(result.status == status, "\(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(try admin.client(app.id) == before)
    }

    @Test func loopbackLogosMayUseHTTPAndHelpNamesTheFlags() throws {
        let app = try admin.createApp("spa", callbacks: "https://spa.example.com/cb", extra: ["--logo-url", "http://127.0.0.1:8000/l.png"])
        #expect(try admin.client(app.id)?.logoURL == "http://127.0.0.1:8000/l.png")
        let help = admin.run(["apps", "create", "--help"])
        #expect(help.standardOutput.contains("--logo-url URL") && help.standardOutput.contains("--accent-color '#RRGGBB'"))
    }
}
