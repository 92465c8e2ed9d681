import HTTP
import OIDC

/// `POST /oauth/introspect` (RFC 7662) for confidential clients: JSON, `{"active":false}` for anything not theirs.
struct IntrospectionEndpoint: Sendable {
    let services: Services
    let introspector: TokenIntrospector

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        do throws(OAuthError) {
            let tokenRequest = try RequestParameters.tokenRequest(request)
            let result = try introspector.introspect(tokenRequest)
            services.logger.debug("token_introspected", ["request_id": .string(request.requestID), "active": .string(result.isActive ? "true" : "false")])
            var response = HTTPResponse.json(result.jsonBody())
            SecurityHeaders.noStore(&response)
            return response
        } catch {
            return OAuthJSON.error(error, request: request, services: services, challenge: .basic)
        }
    }
}
