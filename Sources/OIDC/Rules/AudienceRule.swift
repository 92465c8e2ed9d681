import Model

/// The audience rule of user grants (`/authorize`, and the code, refresh, password and token-exchange
/// grants): as with Auth0, a user flow needs no client grant, so any registered API identifier may be
/// asked for (the access token's `aud` becomes `[api, userinfo]`, see `TokenMinter.accessTokenClaims`),
/// and so may the userinfo URL itself and the built-in `ManagementAPI`. Anything else, an empty value included, is `invalid_request`.
/// `client_credentials` follows the client grant instead (`ClientCredentialsGrant.swift`).
public enum AudienceRule {
    public static let unregistered = "the audience is not a registered API"

    /// The API `audience` names: nil when none was asked for or it is the userinfo URL.
    public static func resolve(_ audience: String?, apis: (any APIStore)?, issuer: String) throws(OAuthError) -> API? {
        guard let audience else { return nil }
        if TokenInspection.same(audience, issuer + DiscoveryDocument.Path.userinfo) { return nil }
        if audience == ManagementAPI.identifier(issuer: issuer) { return ManagementAPI.api(issuer: issuer) }
        let found = try storage { () throws(StorageError) in audience.isEmpty ? nil : try apis?.find(identifier: audience) }
        guard let api = found, TokenInspection.same(api.identifier, audience) else {
            throw OAuthError(.invalidRequest, unregistered, detail: "unknown audience \(audience.debugDescription)")
        }
        return api
    }
}
