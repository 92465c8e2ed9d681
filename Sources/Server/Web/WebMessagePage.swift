import HTTP
import OIDC
import Settings

/// `response_mode=web_message`: a page that hands the authorization response to its opener or
/// parent window with `postMessage` (`assets/web-message.js`), for exactly one checked origin.
///
/// Only this page may be framed, and only by that origin (`frame-ancestors`); it keeps its
/// opener (no `Cross-Origin-Opener-Policy: same-origin`), or a popup could not answer. Shown on
/// its own (a popup the app did not close), it says the window can be closed.
enum WebMessagePage {
    /// - Parameters:
    ///   - origin: the serialised origin to post to (`RedirectTarget.messageOrigin`).
    ///   - fields: the response parameters (`code`, `state`, `iss`, or the error fields).
    static func render(issuer: Issuer, origin: String, fields: [(String, String)], language t: PageText.Language) -> HTTPResponse {
        var body = "<h1>\(HTML.escape(t("web_message.title")))</h1>\n"
        body += "<p class=\"subtitle\">\(HTML.escape(t("web_message.hint")))</p>\n"
        body += "<form id=\"authorization-response\" data-target-origin=\"\(HTML.escape(origin))\" hidden>\n"
        for (name, value) in fields { body += PageLayout.hidden(name, value) }
        body += "</form>\n"
        let html = PageLayout.document(title: t("web_message.title"), issuer: issuer, body: body,
                                       scripts: [issuer.endpoint(StaticAssets.webMessageScriptPath)], language: t.tag)
        return PageLayout.response(html, status: 200, framing: .embeddable(by: [origin]))
    }
}
