import HTTP
import Logging
import Model
import OIDC

/// `POST /oauth/token`: form or JSON body → the protocol core's phases → JSON.
/// Every answer is JSON with `Cache-Control: no-store` (Auth0.swift misreads plain-text errors).
struct TokenHTTPEndpoint: Sendable {
    let services: Services
    let endpoint: TokenEndpoint

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        var clientID: String?
        do throws(OAuthError) {
            let tokenRequest = try RequestParameters.tokenRequest(request)
            clientID = tokenRequest["client_id"]
            // The password grants check credentials with this request's client address (throttling, audit).
            var endpoint = self.endpoint
            endpoint.passwordGrants = PasswordGrantPolicy(authenticator: ThrottledResourceOwner(services: services, ip: request.clientIP),
                                                          connection: services.settings.connectionName)
            let result = try endpoint.handle(tokenRequest)
            let grantType = tokenRequest["grant_type"] ?? ""
            services.record("token.issued", clientID: clientID, ip: request.clientIP, details: ["grant_type": grantType])
            services.metrics.recordTokenIssued(grantType: grantType)
            var response = HTTPResponse.json(result.jsonBody())
            SecurityHeaders.noStore(&response)
            ClientCORS.apply(&response, request: request, clientID: clientID, services: services)
            return response
        } catch {
            return Self.render(error, request: request, services: services, challenge: .basic) { response in
                ClientCORS.apply(&response, request: request, clientID: clientID, services: services)
            }
        }
    }

    /// Renders an OAuth error as RFC 6749 §5.2 JSON, logging the detail the client never sees.
    static func render(_ error: OAuthError, request: HTTPRequest, services: Services, challenge: OAuthError.Challenge,
                       tokenPresented: Bool = true, decorate: (inout HTTPResponse) -> Void = { _ in }) -> HTTPResponse {
        let fields: [String: LogValue] = ["request_id": .string(request.requestID), "path": .string(request.path),
                                                "error": .string(error.code.rawValue), "detail": .string(error.detail ?? error.description)]
        services.logger.log(error.httpStatus >= 500 ? .error : .info, "oauth_error", fields)
        var response = HTTPResponse.json(error.jsonBody(), status: error.httpStatus)
        if let value = error.wwwAuthenticate(challenge, realm: services.issuer.url, tokenPresented: tokenPresented) {
            response.headers.set("WWW-Authenticate", value)
        }
        if error.code == .temporarilyUnavailable { response.headers.set("Retry-After", "1") }
        SecurityHeaders.noStore(&response)
        decorate(&response)
        return response
    }
}

/// `GET|POST /userinfo` (OIDC Core §5.3) with a Bearer access token.
struct UserinfoEndpoint: Sendable {
    let services: Services

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        // RFC 6750 §2.2: a POST form may carry the token as access_token; never the query string.
        var bearer = AccessTokenValidator.bearerToken(fromAuthorization: request.headers["Authorization"])
        if bearer == nil, request.method == "POST", let form = try? RequestParameters.bodyOnly(request) {
            bearer = form.first { $0.0 == "access_token" }?.1
        }
        guard let bearer else {
            return TokenHTTPEndpoint.render(OAuthError(.invalidToken, "An access token is required."), request: request,
                                            services: services, challenge: .bearer, tokenPresented: false)
        }
        do throws(OAuthError) {
            let grant = try AccessTokenValidator.validate(bearer: bearer, keys: services.keyRing.current.verificationKey,
                                                          issuer: services.issuer.url, grants: services.grants,
                                                          users: services.users, clock: services.clock,
                                                          holders: services.grantHolders)
            var response = HTTPResponse.json(UserClaims.userinfoBody(for: grant.user, scopes: grant.scopes))
            SecurityHeaders.noStore(&response)
            if request.headers["Origin"] != nil, let client = try? services.clients.find(clientID: grant.clientID) {
                CORSPolicy.apply(to: &response, request: request, allowedOrigins: client.webOrigins)
            }
            return response
        } catch {
            return TokenHTTPEndpoint.render(error, request: request, services: services, challenge: .bearer)
        }
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
