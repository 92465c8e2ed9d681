import HTTP
import Settings

/// Shown after logout when there is no (valid) `returnTo` to go back to.
enum SignedOutPage {
    static func render(issuer: Issuer, appName: String? = nil, status: Int = 200) -> HTTPResponse {
        let detail = appName.map { "You have signed out of \(HTML.escape($0))." } ?? "You have signed out."
        let body = """
        <h1>Signed out</h1>
        <p class="subtitle">\(detail)</p>
        <p>You can close this window.</p>

        """
        return PageLayout.response(PageLayout.document(title: "Signed out", issuer: issuer, body: body), status: status)
    }
}
