import HTTP
import Settings

/// Shown after logout when there is no (valid) `returnTo` to go back to.
enum SignedOutPage {
    static func render(issuer: Issuer, appName: String? = nil, status: Int = 200,
                       language t: PageText.Language = PageText.shipped.language([])) -> HTTPResponse {
        let detail = appName.map { t("signed_out.message_app", ["app": $0]) } ?? t("signed_out.message")
        let body = """
        <h1>\(HTML.escape(t("signed_out.title")))</h1>
        <p class="subtitle">\(HTML.escape(detail))</p>
        <p>\(HTML.escape(t("signed_out.close")))</p>

        """
        return PageLayout.response(PageLayout.document(title: t("signed_out.title"), issuer: issuer, body: body, language: t.tag),
                                   status: status)
    }
}
