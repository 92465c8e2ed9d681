import Crypto
import Model
import OIDC

/// An application's login-page branding (Auth0 Universal Login's logo and primary colour) as page
/// pieces: the logo's `<img>` and its CSP `img-src` origin, and a `<style>` setting the accent and
/// its text colour, whose SHA-256 the page's CSP allows (`style-src 'self' 'sha256-…'`).
struct Branding: Equatable {
    let logoURL: String?
    let accent: BrandColor?

    init(logoURL: String?, accentColor: String?) {
        // A URL without an origin (stored before validation existed, or edited in SQL) is not shown.
        self.logoURL = logoURL.flatMap { WebOrigin.normalize($0, allowPath: true) == nil ? nil : $0 }
        accent = accentColor.flatMap(BrandColor.init)
    }

    /// The `<img>` above the title; decorative (`alt=""`), as the app's name is in the heading next to it.
    var logoMarkup: String {
        guard let logoURL else { return "" }
        return "<img class=\"logo\" src=\"\(HTML.escape(logoURL))\" alt=\"\" height=\"56\">\n"
    }

    /// `img-src` sources: the logo's origin.
    var imageSources: [String] { logoURL.flatMap { WebOrigin.normalize($0, allowPath: true) }.map { [$0] } ?? [] }

    /// The inline CSS, built only from validated `#rrggbb` values.
    var style: String? {
        guard let accent else { return nil }
        return ":root{--accent:\(accent.hex);--accent-text:\(accent.textColor.hex)}"
    }

    /// Standard base64 of the style's SHA-256, for CSP (CSP3 §8.3 hash-source).
    var styleHashes: [String] { style.map { [Self.base64(Digest.sha256(Array($0.utf8)))] } ?? [] }

    static func base64(_ bytes: [UInt8]) -> String {
        var text = Base64URL.encode(bytes).replacing("-", with: "+").replacing("_", with: "/")
        while text.utf8.count % 4 != 0 { text += "=" }
        return text
    }
}
