import HTTP
import Settings

/// "Sign out of {App}?": asked when an RP-initiated logout cannot be trusted (no valid `id_token_hint`).
///
/// Posts back to `{issuer}{action}` with `csrf_token`, the caller's hidden `fields` and `action=logout` or `action=cancel`.
enum LogoutConfirmPage {
    static func render(issuer: Issuer, csrfToken: String, fields: [(String, String)], appName: String? = nil,
                       action: String = "oidc/logout", status: Int = 200,
                       language t: PageText.Language = PageText.shipped.language([])) -> HTTPResponse {
        let question = appName.map { t("logout.question_app", ["app": $0]) } ?? t("logout.question")
        var body = "<h1>\(HTML.escape(question))</h1>\n"
        body += "<form method=\"post\" action=\"\(HTML.escape(issuer.endpoint(action)))\" class=\"logout-form\">\n"
        body += PageLayout.hidden("csrf_token", csrfToken)
        for (name, value) in fields { body += PageLayout.hidden(name, value) }
        body += """
        <div class="actions">
        <button type="submit" name="action" value="logout" class="button primary">\(HTML.escape(t("logout.yes")))</button>
        <button type="submit" name="action" value="cancel" class="button secondary">\(HTML.escape(t("logout.no")))</button>
        </div>
        </form>

        """
        return PageLayout.response(PageLayout.document(title: question, issuer: issuer, body: body, language: t.tag), status: status)
    }
}
