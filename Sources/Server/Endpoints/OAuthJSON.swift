import HTTP
import Logging
import OIDC

/// The one renderer of OAuth errors as JSON: RFC 6749 §5.2 at the token, revocation and
/// introspection endpoints, RFC 6750 §3 for bearer-protected resources (userinfo). The detail the
/// client never sees is logged with the request id.
enum OAuthJSON {
    static func error(_ error: OAuthError, request: HTTPRequest, services: Services, challenge: OAuthError.Challenge,
                      tokenPresented: Bool = true) -> HTTPResponse {
        let fields: [String: LogValue] = ["request_id": .string(request.requestID), "path": .string(request.path),
                                          "error": .string(error.code.rawValue), "detail": .string(error.detail ?? error.description)]
        services.logger.log(error.httpStatus >= 500 ? .error : .info, "oauth_error", fields)
        var response = HTTPResponse.json(error.jsonBody(), status: error.httpStatus)
        if let value = error.wwwAuthenticate(challenge, realm: services.issuer.url, tokenPresented: tokenPresented) {
            response.headers.set("WWW-Authenticate", value)
        }
        if error.code == .temporarilyUnavailable { response.headers.set("Retry-After", "1") }
        SecurityHeaders.noStore(&response)
        return response
    }
}

/// CORS for the application a request names: only its Allowed Web Origins (token, revocation,
/// introspection endpoints).
enum ClientCORS {
    static func apply(_ response: inout HTTPResponse, request: HTTPRequest, clientID: String?, services: Services) {
        guard request.headers["Origin"] != nil else { return }
        let origins = clientID.flatMap { try? services.clients.find(clientID: $0) }?.webOrigins ?? []
        CORSPolicy.apply(to: &response, request: request, allowedOrigins: origins)
    }
}
