import HTTP
import OIDC

/// Cross-origin access for browser apps (auth0-spa-js).
///
/// Public documents (discovery, JWKS) allow any origin without credentials. Token, revoke and userinfo
/// allow exactly the client's Allowed Web Origins, echoed back with `Vary: Origin`. Never applied to
/// /authorize, login, consent or logout pages (H05).
enum CORSPolicy {
    static let allowedMethods = "POST, GET, OPTIONS"
    static let allowedHeaders = "Authorization, Content-Type, Auth0-Client, DPoP"
    static let maxAgeSeconds = 600

    /// `Access-Control-Allow-Origin: *` for discovery and JWKS.
    static func applyPublic(to response: inout HTTPResponse) {
        response.headers.set("Access-Control-Allow-Origin", "*")
    }

    /// The `Origin` value to echo when it is one of `allowedOrigins`, else nil (also for absent or `null`).
    static func allowedOrigin(_ origin: String?, allowedOrigins: [String]) -> String? {
        guard let origin, let normalized = WebOrigin.normalize(origin) else { return nil }
        for candidate in allowedOrigins where WebOrigin.normalize(candidate, allowPath: true) == normalized {
            return origin
        }
        return nil
    }

    /// The headers to add to an actual (non-preflight) response; empty when the origin is absent or not allowed.
    static func headers(origin: String?, allowedOrigins: [String]) -> [(String, String)] {
        guard let echoed = allowedOrigin(origin, allowedOrigins: allowedOrigins) else { return [] }
        return [("Access-Control-Allow-Origin", echoed), ("Vary", "Origin")]
    }

    /// Adds `headers(origin:allowedOrigins:)` for `request`'s `Origin` to `response`.
    static func apply(to response: inout HTTPResponse, request: HTTPRequest, allowedOrigins: [String]) {
        for (name, value) in headers(origin: request.headers["Origin"], allowedOrigins: allowedOrigins) {
            response.headers.set(name, value)
        }
    }

    /// Answers `OPTIONS`: 204 with the CORS grant for an allowed origin; 403 without CORS headers otherwise.
    /// A plain `OPTIONS` with no `Origin` is not a preflight: 204 with `Allow` only.
    static func preflight(request: HTTPRequest, allowedOrigins: [String]) -> HTTPResponse {
        guard let origin = request.headers["Origin"] else {
            return HTTPResponse(status: 204, headers: HTTPHeaders([("Allow", allowedMethods)]))
        }
        guard let echoed = allowedOrigin(origin, allowedOrigins: allowedOrigins) else {
            return HTTPResponse(status: 403)
        }
        return HTTPResponse(status: 204, headers: HTTPHeaders([
            ("Access-Control-Allow-Origin", echoed),
            ("Access-Control-Allow-Methods", allowedMethods),
            ("Access-Control-Allow-Headers", allowedHeaders),
            ("Access-Control-Max-Age", String(maxAgeSeconds)),
            ("Vary", "Origin"),
        ]))
    }
}
