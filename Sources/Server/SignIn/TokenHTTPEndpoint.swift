import HTTP
import Model
import OIDC

/// `POST /oauth/token`: form or JSON body → the protocol core's phases → JSON.
/// Every answer is JSON with `Cache-Control: no-store` (Auth0.swift misreads plain-text errors).
struct TokenHTTPEndpoint: Sendable {
    let services: Services
    let endpoint: TokenEndpoint

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        var clientID: String?
        var context = RequestContext(clientIP: request.clientIP)
        defer { services.record(context) }
        do throws(OAuthError) {
            let tokenRequest = try RequestParameters.tokenRequest(request)
            clientID = tokenRequest["client_id"]
            let result = try endpoint.handle(tokenRequest, context: &context)
            let grantType = tokenRequest["grant_type"] ?? ""
            services.record("token.issued", clientID: clientID, ip: request.clientIP, details: ["grant_type": grantType])
            services.metrics.recordTokenIssued(grantType: grantType)
            var response = HTTPResponse.json(result.jsonBody())
            SecurityHeaders.noStore(&response)
            ClientCORS.apply(&response, request: request, clientID: clientID, services: services)
            return response
        } catch {
            var response = OAuthJSON.error(error, request: request, services: services, challenge: .basic)
            ClientCORS.apply(&response, request: request, clientID: clientID, services: services)
            return response
        }
    }
}
