import Crypto
import HTTP
import Model
import OIDC
import Testing
@testable import Server

/// WCAG contrast, the text colour picked for an accent, and the branded login page's markup and CSP.
@Suite struct BrandingTests {
    /// Ratios from WCAG 2.2's formula (computed independently from the definitions, to 2 places).
    @Test(arguments: [
        ("#000000", "#ffffff", 21.0), ("#ffffff", "#ffffff", 1.0), ("#0b57d0", "#ffffff", 6.39), ("#767676", "#ffffff", 4.54),
        ("#777777", "#ffffff", 4.48), ("#ffd400", "#ffffff", 1.43), ("#ffd400", "#000000", 14.67),
    ])
    func contrastRatios(_ a: String, _ b: String, _ expected: Double) throws {
        let ratio = try #require(BrandColor(a)).contrast(with: try #require(BrandColor(b)))
        #expect(abs(ratio - expected) < 0.01, "\(a) on \(b): \(ratio)")
    }

    /// Whatever the accent, its button text reaches AA (4.5:1): white when white does, else black.
    @Test func everyAccentGetsReadableText() throws {
        for value in stride(from: 0, to: 0x1000000, by: 0x010203) {
            let color = try #require(BrandColor("#" + String(String(value, radix: 16).reversed()).padding(toLength: 6, withPad: "0", startingAt: 0)))
            #expect(color.contrast(with: color.textColor) >= 4.5, "\(color.hex)")
        }
        #expect(BrandColor("#0b57d0")?.textColor.hex == "#ffffff")
        #expect(BrandColor("#ffd400")?.textColor.hex == "#000000")
    }

    @Test(arguments: ["", "#fff", "0b57d0", "#0b57d0ff", "#0b57dg", "#0b57d0;", "red", "#-1ffff"])
    func parsesOnlySixHexDigits(_ text: String) {
        #expect(BrandColor(text) == nil)
    }

    static func page(logo: String?, accent: String?, appName: String = "Notes") -> HTTPResponse {
        var screen = LoginScreen(transactionID: "tx", csrfToken: "c", appName: appName, redirectURI: "https://app.example.org/cb")
        screen.logoURL = logo
        screen.accentColor = accent
        return LoginPage.render(screen, issuer: Fixtures.httpsIssuer, status: 200)
    }

    /// The logo is an `<img>` whose origin (only) joins img-src; the accent is a `<style>` allowed by its hash.
    @Test func brandedLoginPageCarriesLogoAndHashedStyle() throws {
        let response = Self.page(logo: "https://cdn.example.com/brand/logo.svg?v=2", accent: "#ffd400")
        let html = Fixtures.text(response)
        #expect(html.contains("<img class=\"logo\" src=\"https://cdn.example.com/brand/logo.svg?v=2\" alt=\"\" height=\"56\">"))
        let style = ":root{--accent:#ffd400;--accent-text:#000000}"
        #expect(html.contains("<style>\(style)</style>"))
        let csp = try #require(response.headers["Content-Security-Policy"])
        let hash = Branding.base64(Digest.sha256(Array(style.utf8)))
        #expect(csp.contains("style-src 'self' 'sha256-\(hash)';"), "\(csp)")
        #expect(csp.contains("img-src 'self' data: https://cdn.example.com;"), "\(csp)")
        #expect(!csp.contains("unsafe-inline"))
    }

    @Test func unbrandedPageHasNeitherAndTheDefaultPolicy() throws {
        let response = Self.page(logo: nil, accent: nil)
        let html = Fixtures.text(response)
        #expect(!html.contains("<style>") && !html.contains("class=\"logo\""))
        #expect(response.headers["Content-Security-Policy"]?.contains("style-src 'self'; script-src 'self'; img-src 'self' data:;") == true)
    }

    /// Values that did not pass validation (edited in the database) are not rendered at all.
    @Test func invalidStoredBrandingIsIgnored() {
        let html = Fixtures.text(Self.page(logo: "javascript:alert(1)", accent: "red;}body{display:none"))
        #expect(!html.contains("<style>") && !html.contains("javascript:") && !html.contains("<img"))
    }

    @Test func base64IsTheStandardAlphabetWithPadding() {
        #expect(Branding.base64(Array("hello".utf8)) == "aGVsbG8=")
        #expect(Branding.base64([0xFB, 0xFF]) == "+/8=")
    }
}
