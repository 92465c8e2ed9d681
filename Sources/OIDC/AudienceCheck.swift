import Model

/// The `/authorize` `audience` rule, applied by the web layer to the Authorizer's decision.
///
/// For user flows Auth0 does not require a client grant: any registered API identifier is
/// accepted (the access token's `aud` becomes `[api, userinfo]`, see `TokenMinter.accessTokenClaims`),
/// the userinfo URL itself is accepted, and anything else — including an empty value — is
/// `invalid_request`, redirected to the already validated redirect URI.
public enum AudienceCheck {
    public static func screen(_ decision: AuthorizeDecision, apis: any APIStore, issuer: String) -> AuthorizeDecision {
        let request: AuthorizationRequest
        switch decision {
        case .login(let pending, _): request = pending
        case .issueCode(let pending, _): request = pending
        case .errorPage, .errorRedirect: return decision
        }
        guard let audience = request.audience else { return decision }
        if let error = problem(audience, apis: apis, issuer: issuer) {
            return .errorRedirect(request.target(issuer: issuer), error)
        }
        return decision
    }

    /// nil when `audience` is acceptable.
    public static func problem(_ audience: String, apis: any APIStore, issuer: String) -> OAuthError? {
        if TokenInspection.same(audience, issuer + DiscoveryDocument.Path.userinfo) { return nil }
        do {
            guard !audience.isEmpty, let api = try apis.find(identifier: audience), TokenInspection.same(api.identifier, audience) else {
                return OAuthError(.invalidRequest, "the audience is not a registered API", detail: "unknown audience \(audience.debugDescription)")
            }
            return nil
        } catch {
            return OAuthError(storage: error)
        }
    }
}
