import Model

/// What a grant asks of the token endpoint's scope-and-audience phase; one rule per kind of grant.
enum ScopeRule: Sendable {
    /// A user's grant (authorization code, password grants, token exchange): the audience rule of
    /// `/authorize` (`AudienceRule`), and the scopes `ScopeList.granted` keeps for that API.
    case user(scope: [String], audience: String?)
    /// A refresh: `scope` may only narrow the family's and `audience` only repeat the family's
    /// (RFC 6749 §6); the user rule then applies to the family's audience.
    case refresh(requestedScope: String?, requestedAudience: String?, family: Grant)
    /// `client_credentials`: the application's client grant for the API decides (`ClientCredentialsGrant.swift`).
    case clientCredentials(requestedScope: String?, audience: String?, clientID: String)
}

/// What the phase granted.
struct ScopeDecision: Sendable, Equatable {
    /// Granted scopes, in canonical order; the response's `scope` and the access token's.
    var scopes: [String]
    var audience: String?
    /// The API and its client grant, for `client_credentials`.
    var machine: MachineIssuance?
    /// The signing algorithm of the API a user grant's audience names.
    var apiSigningAlgorithm: String?
}

extension TokenEndpoint {
    /// The scope-and-audience phase every grant passes between its own checks and its writes.
    func decideScope(_ rule: ScopeRule) throws(OAuthError) -> ScopeDecision {
        switch rule {
        case .user(let scope, let audience):
            let api = try AudienceRule.resolve(audience, apis: apis, issuer: issuer)
            return ScopeDecision(scopes: ScopeList.granted(scope, api: api), audience: audience, apiSigningAlgorithm: api?.signingAlgorithm)
        case .refresh(let requestedScope, let requestedAudience, let family):
            let scope = try narrowedScopes(requestedScope, granted: family.scope)
            try checkAudience(requestedAudience, grant: family)
            let api = try AudienceRule.resolve(family.audience, apis: apis, issuer: issuer)
            return ScopeDecision(scopes: ScopeList.granted(scope, api: api), audience: family.audience,
                                 apiSigningAlgorithm: api?.signingAlgorithm)
        case .clientCredentials(let requestedScope, let audience, let clientID):
            guard let apis else { throw OAuthError(.serverError, "internal error", detail: "no API store configured") }
            let (api, clientGrant) = try Self.resolveAPI(audience: audience, clientID: clientID, apis: apis)
            // As Auth0: any requested scope outside the client grant refuses the whole request.
            let outside = ScopeList.tokens(requestedScope).filter { !clientGrant.scopes.contains($0) }
            guard outside.isEmpty else {
                throw OAuthError(.accessDenied, "Client has not been granted scopes: \(outside.joined(separator: " "))",
                                 detail: "\(clientID) asked \(outside) of \(api.identifier)")
            }
            let scopes = Self.grantedScopes(requested: requestedScope, granted: clientGrant.scopes)
            return ScopeDecision(scopes: scopes, audience: api.identifier, machine: MachineIssuance(api: api, scopes: scopes))
        }
    }

    /// RFC 6749 §6: the requested scopes may only narrow the family's; none requested → all of them.
    func narrowedScopes(_ requested: String?, granted: String) throws(OAuthError) -> [String] {
        let grantedScopes = ScopeList.tokens(granted)
        let asked = ScopeList.tokens(requested)
        guard !asked.isEmpty else { return grantedScopes }
        guard Set(asked).isSubset(of: grantedScopes) else {
            throw OAuthError(.invalidScope, "the requested scope exceeds the granted scope",
                             detail: "asked \(asked.sorted()), granted \(grantedScopes.sorted())")
        }
        return asked
    }

    /// Only the family's own audience may be asked for on a refresh (absent, or equal to it).
    func checkAudience(_ requested: String?, grant: Grant) throws(OAuthError) {
        guard let requested, !requested.isEmpty else { return }
        guard let granted = grant.audience, TokenInspection.same(granted, requested) else {
            throw OAuthError(.invalidRequest, "audience not granted", detail: "asked \(requested), grant has \(grant.audience ?? "none")")
        }
    }
}
