import HTTP
import Model
import OIDC

/// `POST /oauth/revoke` (RFC 7009): form or JSON body → `TokenRevoker` → 200 with an empty body,
/// whatever the token was (unknown, revoked, another client's). Errors are OAuth JSON
/// (`invalid_client` 401 with `WWW-Authenticate: Basic`). CORS per the client's web origins.
struct RevocationEndpoint: Sendable {
    let services: Services
    let revoker: TokenRevoker

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        var clientID: String?
        do throws(OAuthError) {
            let tokenRequest = try RequestParameters.tokenRequest(request)
            clientID = tokenRequest["client_id"]
            switch try revoker.revoke(tokenRequest) {
            case .revoked(let grantID, let kind):
                services.logger.info("token_revoked", ["request_id": .string(request.requestID), "grant_id": .string(grantID),
                                                       "token_type": .string(kind.rawValue)])
                services.record("token.revoked", clientID: clientID, ip: request.clientIP,
                                details: ["grant_id": grantID, "token_type": kind.rawValue])
            case .ignored(let reason):
                services.logger.info("revocation_ignored", ["request_id": .string(request.requestID), "reason": .string(reason)])
            }
            var response = HTTPResponse(status: 200)
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
