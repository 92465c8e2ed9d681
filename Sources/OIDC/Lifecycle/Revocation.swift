import FoundationEssentials
import Model

/// What a revocation request did; the HTTP answer is 200 with an empty body either way (RFC 7009 §2.2).
public enum RevocationResult: Sendable, Equatable {
    /// The token's whole grant (its refresh-token family and, through `grant_id`, its access tokens) is revoked.
    case revoked(grantID: String, kind: TokenKind)
    /// Nothing happened: unknown, malformed, already revoked, or another client's token. The reason is for logs only.
    case ignored(String)
}

/// `POST /oauth/revoke` (RFC 7009), as Auth0.swift calls it (`{"token":…,"client_id":…}`, no hint).
///
/// 1. Client authentication as at the token endpoint (`ClientAuthenticator`): public clients by
///    `client_id` alone, confidential ones with their secret. Failure → `invalid_client` (401).
/// 2. `token` is required (`invalid_request`); `token_type_hint` is accepted and not needed.
/// 3. A refresh token (found by hash) or one of our access tokens (opaque and opened, or a JWT with its signature verified; `grant_id`)
///    revokes its grant — the whole family. A `client_credentials` grant has no row: its revocation
///    is remembered until the token's `exp` (`MachineGrants`). A token of another client changes
///    nothing and answers the same as an unknown one, so the endpoint is no oracle for other clients' tokens.
public struct TokenRevoker: Sendable {
    public let issuer: String
    public let clients: any ClientStore
    public let grants: any GrantStore
    public let lookup: any LifecycleLookup
    public let keys: Authorizer.KeyLookup
    public let opaqueTokens: OpaqueAccessTokens
    /// Recognises `rt2` refresh tokens (`RefreshTokens.familyMAC`); nil: only older ones are found.
    public var familyMAC: RefreshFamilyMAC?
    public let clock: any Clock

    public init(issuer: String, clients: any ClientStore, grants: any GrantStore, lookup: any LifecycleLookup,
                keys: @escaping Authorizer.KeyLookup, opaqueTokens: OpaqueAccessTokens, clock: any Clock) {
        self.issuer = issuer
        self.clients = clients
        self.grants = grants
        self.lookup = lookup
        self.keys = keys
        self.opaqueTokens = opaqueTokens
        self.clock = clock
    }

    public func revoke(_ request: TokenRequest) throws(OAuthError) -> RevocationResult {
        let client = try ClientAuthenticator.authenticate(request, clients: clients).client
        guard let token = request["token"], !token.isEmpty else { throw OAuthError(.invalidRequest, "token is required") }
        let grantID: String
        let kind: TokenKind
        var machineTokenExpiry: Date?
        switch try TokenInspection.inspect(token, lookup: lookup, keys: keys, opaque: opaqueTokens, issuer: issuer, familyMAC: familyMAC) {
        case .unknown(let reason):
            return .ignored(reason)
        case .refresh(let snapshot):
            guard TokenInspection.same(snapshot.clientID, client.clientID) else {
                return .ignored("refresh token of \(snapshot.clientID) presented by \(client.clientID)")
            }
            (grantID, kind) = (snapshot.grantID, .refreshToken)
        case .access(let claims, let tokenGrantID, let clientID):
            guard TokenInspection.same(clientID, client.clientID) else {
                return .ignored("access token of \(clientID) presented by \(client.clientID)")
            }
            (grantID, kind) = (tokenGrantID, .accessToken)
            if MachineGrants.isMachineToken(claims, clientID: clientID), let exp = claims["exp"]?.integerValue {
                machineTokenExpiry = Date(timeIntervalSince1970: TimeInterval(exp))
            }
        }
        do {
            let stored = try grants.find(grantID: grantID)
            if stored == nil, let machineTokenExpiry {
                // A client_credentials grant has no row: remembered as revoked until its token expires.
                guard machineTokenExpiry > clock.now else { return .ignored("access token of grant \(grantID) already expired") }
                guard try grants.revokeMachineGrant(grantID: grantID, until: machineTokenExpiry) else {
                    return .ignored("grant \(grantID) already revoked")
                }
                return .revoked(grantID: grantID, kind: kind)
            }
            guard let grant = stored, TokenInspection.same(grant.clientID, client.clientID) else {
                return .ignored("grant \(grantID) unknown or of another client")
            }
            guard grant.revokedAt == nil else { return .ignored("grant \(grantID) already revoked") }
            try grants.revoke(grantID: grantID, at: clock.now, reason: "revoked by the client (\(kind.rawValue))")
        } catch {
            throw OAuthError(storage: error)
        }
        return .revoked(grantID: grantID, kind: kind)
    }
}
