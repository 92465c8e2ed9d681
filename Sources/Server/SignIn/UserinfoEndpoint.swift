import HTTP
import KeyManagement
import Model
import OIDC

/// `GET|POST /userinfo` (OIDC Core §5.3) with a Bearer access token.
struct UserinfoEndpoint: Sendable {
    let services: Services
    let keyRing: KeyRing
    let opaqueTokens: OpaqueAccessTokens
    let grants: any GrantStore
    let users: any UserStore
    let holders: any GrantHolderReader

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        // RFC 6750 §2.2: a POST form may carry the token as access_token; never the query string.
        var bearer = AccessTokenValidator.bearerToken(fromAuthorization: request.headers["Authorization"])
        if bearer == nil, request.method == "POST", let form = try? RequestParameters.bodyOnly(request) {
            bearer = form.first { $0.0 == "access_token" }?.1
        }
        guard let bearer else {
            return OAuthJSON.error(OAuthError(.invalidToken, "An access token is required."), request: request,
                                   services: services, challenge: .bearer, tokenPresented: false)
        }
        do throws(OAuthError) {
            let grant = try AccessTokenValidator.validate(bearer: bearer, keys: keyRing.current.verificationKey, opaque: opaqueTokens,
                                                          issuer: services.issuer.url, grants: grants, users: users,
                                                          clock: services.clock, holders: holders)
            // The application decides the form of updated_at; its cached row costs one counter read.
            let client = try? services.clients.find(clientID: grant.clientID)
            var response = HTTPResponse.json(UserClaims.userinfoBody(for: grant.user, scopes: grant.scopes,
                                                                     updatedAt: client?.updatedAtFormat ?? .iso))
            SecurityHeaders.noStore(&response)
            if request.headers["Origin"] != nil, let client {
                CORSPolicy.apply(to: &response, request: request, allowedOrigins: client.webOrigins)
            }
            return response
        } catch {
            return OAuthJSON.error(error, request: request, services: services, challenge: .bearer)
        }
    }
}

