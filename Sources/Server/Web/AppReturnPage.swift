import HTTP
import Settings

/// Shown at `https://{host}/ios/{bundle}/callback` (or `/android/{package}/callback`) when the
/// universal link or App Link was not intercepted (app not installed, older iOS, link opened in a
/// browser): one button back to the app (`AppReturnLink`), instead of a JSON 404.
enum AppReturnPage {
    static func render(issuer: Issuer, appName: String, link: String, language t: PageText.Language) -> HTTPResponse {
        let values = ["app": appName]
        let body = """
        <h1>\(HTML.escape(t("app_return.title", values)))</h1>
        <p class="subtitle">\(HTML.escape(t("app_return.message", values)))</p>
        <div class="actions">
        <a class="button primary" href="\(HTML.escape(link))">\(HTML.escape(t("app_return.button", values)))</a>
        </div>
        <p class="hint">\(HTML.escape(t("app_return.not_installed", values)))</p>

        """
        return PageLayout.response(PageLayout.document(title: t("app_return.title", values), issuer: issuer, body: body, language: t.tag),
                                   status: 200)
    }
}
