import HTTP
import Settings

/// A dead end shown in the browser when redirecting back would be unsafe (unknown client, unregistered callback).
///
/// Never redirects and never shows internals: callers pass texts from the catalogue, and the
/// reference is an error code and the request id, which support can match to the log line.
enum ErrorPage {
    struct Reference: Equatable {
        let code: String
        let requestID: String?
    }

    static func render(title: String, message: String, reference: Reference? = nil, status: Int = 400, issuer: Issuer? = nil,
                       language t: PageText.Language = PageText.shipped.language([])) -> HTTPResponse {
        var body = """
        <h1>\(HTML.escape(title))</h1>
        <p class="error" role="alert">\(HTML.escape(message))</p>

        """
        if let reference {
            body += "<dl class=\"reference\">\n<dt>\(HTML.escape(t("page_error.code_label")))</dt><dd><code>\(HTML.escape(reference.code))</code></dd>\n"
            if let requestID = reference.requestID, !requestID.isEmpty {
                body += "<dt>\(HTML.escape(t("page_error.request_label")))</dt><dd><code>\(HTML.escape(requestID))</code></dd>\n"
            }
            body += "</dl>\n"
        }
        return PageLayout.response(PageLayout.document(title: title, issuer: issuer, body: body, language: t.tag), status: status)
    }
}
