import HTTP
import OIDC
import Settings

/// OAuth 2.0 Form Post Response Mode: an auto-submitting POST of the response parameters to the client.
///
/// CSP forbids inline script, so `assets/form-post.js` (ours) submits the form; the visible
/// "Continue" button does it without JavaScript. `form-action` is widened to the target's origin only.
enum FormPostPage {
    static func render(issuer: Issuer, action: String, fields: [(String, String)],
                       language t: PageText.Language = PageText.shipped.language([])) -> HTTPResponse {
        var body = "<h1>\(HTML.escape(t("form_post.title")))</h1>\n"
        body += "<form method=\"post\" action=\"\(HTML.escape(action))\" class=\"form-post\">\n"
        for (name, value) in fields { body += PageLayout.hidden(name, value) }
        body += """
        <p class="subtitle">\(HTML.escape(t("form_post.hint")))</p>
        <div class="actions">
        <button type="submit" class="button primary">\(HTML.escape(t("button.continue")))</button>
        </div>
        </form>

        """
        let html = PageLayout.document(title: t("form_post.document_title"), issuer: issuer, body: body,
                                       scripts: [issuer.endpoint(StaticAssets.formPostScriptPath)], language: t.tag)
        let target = WebOrigin.cspSource(forAction: action).map { [$0] } ?? []
        return PageLayout.response(html, status: 200, formAction: target)
    }
}
