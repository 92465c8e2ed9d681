import Crypto
import HTTP

/// The stylesheet and the form-post and web-message scripts, compiled into the binary and served under `{issuer}assets/`.
enum StaticAssets {
    struct Asset: Sendable {
        let contentType: String
        let body: [UInt8]
        /// Strong ETag: a quoted prefix of the body's SHA-256.
        let etag: String

        init(contentType: String, text: String) {
            self.contentType = contentType
            body = Array(text.utf8)
            etag = "\"" + String(Digest.sha256Hex(body).prefix(32)) + "\""
        }
    }

    static let stylesheetPath = "assets/gatehouse.css"
    static let formPostScriptPath = "assets/form-post.js"
    static let webMessageScriptPath = "assets/web-message.js"
    /// Route paths relative to the issuer, for registering with the router.
    static let paths = [stylesheetPath, formPostScriptPath, webMessageScriptPath]

    static let stylesheet = Stylesheet.text
    static let formPostScript = FormPostScript.text

    static let assets: [String: Asset] = [
        stylesheetPath: Asset(contentType: "text/css; charset=utf-8", text: stylesheet),
        formPostScriptPath: Asset(contentType: "text/javascript; charset=utf-8", text: formPostScript),
        webMessageScriptPath: Asset(contentType: "text/javascript; charset=utf-8", text: WebMessageScript.text),
    ]

    /// The response for `path` (relative to the issuer; a leading `/` is ignored), or nil for an unknown path.
    /// A matching `If-None-Match` gives 304 with no body.
    static func response(for path: String, ifNoneMatch: String? = nil) -> HTTPResponse? {
        let relative = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard let asset = assets[relative] else { return nil }
        var response: HTTPResponse
        if let ifNoneMatch, ETagMatch.matches(ifNoneMatch, etag: asset.etag) {
            response = HTTPResponse(status: 304)
        } else {
            response = HTTPResponse(status: 200, body: asset.body)
            response.headers.set("Content-Type", asset.contentType)
        }
        response.headers.set("ETag", asset.etag)
        response.headers.set("Cache-Control", "public, max-age=86400")
        response.headers.set("X-Content-Type-Options", "nosniff")
        return response
    }
}
