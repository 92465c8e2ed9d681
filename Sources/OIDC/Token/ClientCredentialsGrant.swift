import Crypto
import FoundationEssentials
import JOSE
import Model

/// What a client_credentials grant hands to minting: the API and the scopes granted for it.
public struct MachineIssuance: Sendable, Equatable {
    public let api: API
    /// Granted scopes, in the client grant's order.
    public let scopes: [String]

    public init(api: API, scopes: [String]) {
        self.api = api
        self.scopes = scopes
    }
}

// MARK: - The grant (RFC 6749 §4.4)

extension TokenEndpoint {
    /// `grant_type=client_credentials` for a confidential application:
    ///
    /// - a public client (or one authenticated with `none`) → `unauthorized_client`;
    /// - `audience` names the API; without it the application's only granted API is used,
    ///   else `invalid_request`;
    /// - an unknown API, or one not granted to the application → `access_denied` (403);
    /// - `scope`: the requested scopes, every one of which the client grant must hold (else
    ///   `access_denied` "Client has not been granted scopes: …", 403, as Auth0), or every granted
    ///   scope when none is requested (the scope-and-audience phase's `.clientCredentials` rule);
    /// - a `Grant` with no user names the token's `grant_id`, by which it is revoked and introspected.
    ///   It is not stored: the signed token carries the grant, the application and its expiry, so
    ///   issuing one writes nothing, and a revocation is remembered until the token's `exp`
    ///   (`GrantStore.revokeMachineGrant`). A machine client asking for a token per call costs the
    ///   database nothing (README "Machine-to-machine tokens").
    ///
    /// The issuance's `user` is a placeholder whose id is the client id; minting takes the
    /// `machine` branch (`TokenMinter.machineResponse`): no ID token, no refresh token.
    func clientCredentialsGrant(_ request: TokenRequest, client authenticated: AuthenticatedClient) throws(OAuthError) -> GrantDraft {
        let client = authenticated.client
        guard client.isConfidential, authenticated.method != .none else {
            throw OAuthError(.unauthorizedClient, "the application may not use the client_credentials grant",
                             detail: "\(client.clientID) is a public client")
        }
        let now = clock.now
        let rule = ScopeRule.clientCredentials(requestedScope: request["scope"], audience: request["audience"], clientID: client.clientID)
        return GrantDraft(rule: rule) { decision throws(OAuthError) in
            let grant = Grant(grantID: Random.token(bytes: 16), clientID: client.clientID, userID: nil, sessionID: nil,
                              scope: decision.scopes.joined(separator: " "), audience: decision.audience, authTime: nil, createdAt: now)
            var issuance = TokenIssuance(client: client, user: User(userID: client.clientID, email: "", createdAt: now), grant: grant,
                                         scopes: decision.scopes, audience: decision.audience, nonce: nil, authTime: nil, sessionID: nil)
            issuance.machine = decision.machine
            return issuance
        }
    }

    /// The API named by `audience` (or the only granted one) and the application's grant for it.
    static func resolveAPI(audience: String?, clientID: String, apis: any APIStore) throws(OAuthError) -> (API, ClientGrant) {
        do {
            guard let audience, !audience.isEmpty else {
                let granted = try apis.clientGrants(clientID: clientID)
                guard granted.count == 1, let only = granted.first, let api = try apis.find(apiID: only.apiID) else {
                    throw OAuthError(.invalidRequest, "audience is required",
                                     detail: "\(clientID) has \(granted.count) granted APIs and sent no audience")
                }
                return (api, only)
            }
            guard let api = try apis.find(identifier: audience), TokenInspection.same(api.identifier, audience) else {
                throw OAuthError(.accessDenied, "the application is not authorized for this audience", detail: "unknown API \(audience)")
            }
            guard let grant = try apis.clientGrant(clientID: clientID, apiID: api.apiID) else {
                throw OAuthError(.accessDenied, "the application is not authorized for this audience",
                                 detail: "\(clientID) has no grant for \(audience)")
            }
            return (api, grant)
        } catch let error as OAuthError {
            throw error
        } catch let error as StorageError {
            throw OAuthError(storage: error)
        } catch {
            throw OAuthError(.serverError, "internal error", detail: "\(error)")
        }
    }

    /// Requested ∩ granted in the grant's order; every granted scope when nothing is requested.
    static func grantedScopes(requested: String?, granted: [String]) -> [String] {
        let asked = (requested ?? "").split(whereSeparator: { $0 == " " }).map(String.init)
        var seen: Set<String> = []
        let base = granted.filter { seen.insert($0).inserted }
        guard !asked.isEmpty else { return base }
        let wanted = Set(asked)
        return base.filter { wanted.contains($0) }
    }
}

// MARK: - Minting (RFC 9068)

extension TokenMinter {
    /// The client_credentials response: an access token for the API, its lifetime, the granted scope.
    public func machineResponse(for issuance: TokenIssuance, machine: MachineIssuance) throws(OAuthError) -> TokenResponse {
        guard let algorithm = SigningKey.Algorithm(rawValue: machine.api.signingAlgorithm) else {
            throw OAuthError(.serverError, "internal error", detail: "API \(machine.api.apiID) has algorithm \(machine.api.signingAlgorithm)")
        }
        let claims = machineAccessTokenClaims(for: issuance, machine: machine, now: clock.now)
        let token: String
        do {
            token = try signer.sign(claims: claims, algorithm: algorithm, typ: "at+jwt")
        } catch {
            throw OAuthError(.serverError, "internal error", detail: "signing failed: \(error)")
        }
        return TokenResponse(accessToken: token, idToken: nil, tokenType: "Bearer", expiresIn: machine.api.tokenLifetime,
                             scope: machine.scopes.joined(separator: " "), refreshToken: nil)
    }

    /// `iss sub aud client_id scope jti iat exp grant_id gty`: `sub` is the client, `aud` the API only.
    public func machineAccessTokenClaims(for issuance: TokenIssuance, machine: MachineIssuance, now: Date) -> [String: JSONValue] {
        let iat = Int64(now.timeIntervalSince1970.rounded(.down))
        return [
            "iss": .string(issuer),
            "sub": .string(issuance.client.clientID),
            "aud": .string(machine.api.identifier),
            "client_id": .string(issuance.client.clientID),
            "scope": .string(machine.scopes.joined(separator: " ")),
            "jti": .string(Random.token(bytes: 16)),
            "iat": .integer(iat),
            "exp": .integer(iat + Int64(machine.api.tokenLifetime)),
            "grant_id": .string(issuance.grant.grantID),
            "gty": .string("client-credentials"),
        ]
    }
}
