import HTTP
import Settings

/// The HTML5 shell shared by every page: viewport, colour scheme, our stylesheet, nothing third-party.
enum PageLayout {
    /// A whole document; `title` is escaped here, `body` must already be safe markup.
    /// With no issuer the page has no stylesheet (it stays readable, just unstyled).
    /// `style` is an inline `<style>` block's text, already safe CSS; its hash must be in the page's CSP (`Branding`).
    static func document(title: String, issuer: Issuer?, body: String, scripts: [String] = [], language: String = "en",
                         style: String? = nil) -> String {
        var head = """
        <!DOCTYPE html>
        <html lang="\(HTML.escape(language))">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <meta name="referrer" content="no-referrer">
        <title>\(HTML.escape(title))</title>

        """
        if let issuer {
            head += "<link rel=\"stylesheet\" href=\"\(HTML.escape(issuer.endpoint(StaticAssets.stylesheetPath)))\">\n"
        }
        if let style { head += "<style>\(style)</style>\n" }
        for script in scripts {
            head += "<script src=\"\(HTML.escape(script))\" defer></script>\n"
        }
        return head + "</head>\n<body>\n<main class=\"card\">\n" + body + "</main>\n</body>\n</html>\n"
    }

    /// A page response with the security headers applied.
    /// An embeddable page also keeps its opener (it answers the window that opened or framed it).
    static func response(_ html: String, status: Int, formAction: [String] = [], framing: SecurityHeaders.Framing = .denied,
                         keepsOpener: Bool = false, images: [String] = [], styleHashes: [String] = []) -> HTTPResponse {
        var response = HTTPResponse(status: status, body: Array(html.utf8))
        let opener = keepsOpener || framing != .denied
        SecurityHeaders.apply(to: &response, formAction: formAction, framing: framing, keepsOpener: opener, images: images,
                              styleHashes: styleHashes)
        return response
    }

    /// `<p class="error" role="alert">` with the escaped message, or nothing.
    static func errorParagraph(_ message: String?) -> String {
        guard let message, !message.isEmpty else { return "" }
        return "<p class=\"error\" role=\"alert\">\(HTML.escape(message))</p>\n"
    }

    /// A hidden input with escaped name and value.
    static func hidden(_ name: String, _ value: String) -> String {
        "<input type=\"hidden\" name=\"\(HTML.escape(name))\" value=\"\(HTML.escape(value))\">\n"
    }
}
