import FoundationEssentials
import HTTP
import KeyManagement
import OIDC
import Settings

/// `GET /.well-known/jwks.json`: active and retired public keys, cacheable, with a strong ETag.
struct JWKSHandler: Sendable {
    let keyRing: KeyRing
    let maxAge: Duration

    func respond(_ request: HTTPRequest) -> HTTPResponse {
        let keys = keyRing.current
        var response: HTTPResponse
        if let condition = request.headers["If-None-Match"], ETagMatch.matches(condition, etag: keys.etag) {
            response = HTTPResponse(status: 304)
        } else {
            response = HTTPResponse.json(keys.jwksBody)
        }
        response.headers.set("ETag", keys.etag)
        response.headers.set("Cache-Control", "public, max-age=\(maxAge.components.seconds)")
        response.headers.set("Access-Control-Allow-Origin", "*")
        return response
    }
}

/// `If-None-Match` evaluation (RFC 9110 §13.1.2): `*` or any listed tag, compared weakly.
enum ETagMatch {
    static func matches(_ header: String, etag: String) -> Bool {
        let wanted = strip(etag)
        for candidate in header.split(separator: ",") {
            let tag = candidate.trimmingWhitespace()
            if tag == "*" || strip(tag) == wanted { return true }
        }
        return false
    }

    private static func strip(_ tag: some StringProtocol) -> Substring {
        let text = Substring(tag)
        return text.hasPrefix("W/") ? text.dropFirst(2) : text
    }
}
