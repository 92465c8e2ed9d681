import HTTP
import Settings

/// A dead end shown in the browser when redirecting back would be unsafe (unknown client, unregistered callback).
///
/// Never redirects and never shows internals: callers pass fixed, user-facing text.
enum ErrorPage {
    static func render(title: String, message: String, status: Int = 400, issuer: Issuer? = nil) -> HTTPResponse {
        let body = """
        <h1>\(HTML.escape(title))</h1>
        <p class="error" role="alert">\(HTML.escape(message))</p>

        """
        return PageLayout.response(PageLayout.document(title: title, issuer: issuer, body: body), status: status)
    }
}
