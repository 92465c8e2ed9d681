import OIDC

/// One upstream connection's button on the login page. Apple's follows its Human Interface
/// Guidelines (black with a white logo and "Sign in with Apple", white on black in dark mode);
/// Google's its branding rules (white, a grey outline and the four-colour "G", "Continue with
/// Google"; dark grey in dark mode). The logos are inline SVG drawn for this page, so the page
/// loads nothing from a third party. Styles: `Stylesheet` (`.connection`).
struct ConnectionButton {
    let offer: ConnectionOffer
    let t: PageText.Language

    var markup: String {
        let (kind, label, logo): (String, String, String) = switch offer.strategy {
        case .apple: ("apple", t("button.apple"), Self.appleLogo)
        case .google: ("google", t("button.google"), Self.googleLogo)
        case .oidc: ("oidc", t("button.connection", ["name": offer.name]), "")
        }
        return "<button type=\"submit\" name=\"action\" value=\"\(HTML.escape(UpstreamAuthenticator.actionPrefix + offer.name))\""
            + " class=\"button connection \(kind)\" formnovalidate>\(logo)<span>\(HTML.escape(label))</span></button>\n"
    }

    /// An apple with a bite and a leaf, in the button's text colour.
    static let appleLogo = """
        <svg class="logo-mark" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"><path fill="currentColor" \
        d="M12 7.2c-1.1 0-2.2-.7-3.4-.7C6.3 6.5 4.5 8.5 4.5 11.6c0 3.6 2.4 8.4 4.6 8.4 1 0 1.6-.6 2.9-.6s1.8.6 2.9.6c1.8 0 3.3-3 \
        3.9-4.6-1.7-.7-2.6-2.2-2.6-3.9 0-1.5.8-2.7 2-3.4-.8-1.1-2-1.6-3.1-1.6-1.2 0-2.1.7-3.1.7zM14.6 2.5c.1 1.1-.4 2.1-1 2.8-.7.7-1.6 \
        1.2-2.5 1.1-.1-1 .4-2 1-2.7.7-.7 1.7-1.2 2.5-1.2z"/></svg>
        """

    /// The "G": four arcs of a ring and the bar, in Google's four colours.
    static let googleLogo = """
        <svg class="logo-mark" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" fill="none" \
        stroke-width="3.6"><path stroke="#4285F4" d="M19 12A7 7 0 0 1 16.95 16.95M12 12H20.8"/><path stroke="#34A853" \
        d="M16.95 16.95A7 7 0 0 1 5.94 15.5"/><path stroke="#FBBC05" d="M5.94 15.5A7 7 0 0 1 5.94 8.5"/><path stroke="#EA4335" \
        d="M5.94 8.5A7 7 0 0 1 16.95 7.05"/></svg>
        """
}
