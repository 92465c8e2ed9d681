import Crypto
import FoundationEssentials
import Model

/// What a grant hands to token minting: who, for which client, under which grant, with what.
public struct TokenIssuance: Sendable, Equatable {
    public let client: Client
    public let user: User
    public let grant: Grant
    /// Granted scopes, canonical order.
    public let scopes: [String]
    public let audience: String?
    public let nonce: String?
    public let authTime: Date?
    public let sessionID: String?
    /// The refresh token to return (a new family's first, or a rotation's successor); nil for none.
    public let refreshToken: String?
    /// Set by the client_credentials grant: minting takes `TokenMinter.machineResponse` (ClientCredentialsGrant.swift).
    public var machine: MachineIssuance? = nil

    public init(client: Client, user: User, grant: Grant, scopes: [String], audience: String?, nonce: String?,
                authTime: Date?, sessionID: String?, refreshToken: String? = nil) {
        self.client = client
        self.user = user
        self.grant = grant
        self.scopes = scopes
        self.audience = audience
        self.nonce = nonce
        self.authTime = authTime
        self.sessionID = sessionID
        self.refreshToken = refreshToken
    }
}

/// The token endpoint's fixed phases (RFC 6749 §3.2, §4.1.3, §5): client authentication,
/// grant dispatch from a table, the grant itself, then minting. No grant can skip a phase.
public struct TokenEndpoint: Sendable {
    public let issuer: String
    public let clients: any ClientStore
    public let codes: any AuthorizationCodeStore
    public let grants: any GrantStore
    public let users: any UserStore
    public let clock: any Clock
    public let minter: TokenMinter
    /// Refresh tokens; nil → none issued and the `refresh_token` grant is unsupported.
    public let refreshTokens: RefreshTokens?
    /// APIs and client grants, for client_credentials (set by the web layer; nil → that grant fails).
    public var apis: (any APIStore)? = nil
    /// The resource-owner password grants (set by the web layer; nil → unsupported).
    public var passwordGrants: PasswordGrantPolicy? = nil

    public init(issuer: String, clients: any ClientStore, codes: any AuthorizationCodeStore, grants: any GrantStore,
                users: any UserStore, clock: any Clock, minter: TokenMinter, refreshTokens: RefreshTokens? = nil) {
        self.issuer = issuer
        self.clients = clients
        self.codes = codes
        self.grants = grants
        self.users = users
        self.clock = clock
        self.minter = minter
        self.refreshTokens = refreshTokens
    }

    typealias GrantHandler = @Sendable (TokenEndpoint, TokenRequest, AuthenticatedClient) throws(OAuthError) -> TokenIssuance

    /// The grants implemented here, by `grant_type`. Hook: the refresh-token work adds
    /// `"refresh_token"` (and its minting of a rotated refresh token in `TokenMinter.response`).
    static let grantHandlers: [String: GrantHandler] = [
        Client.GrantType.authorizationCode.rawValue: { endpoint, request, client throws(OAuthError) in
            try endpoint.authorizationCodeGrant(request, client: client)
        },
        Client.GrantType.refreshToken.rawValue: { endpoint, request, client throws(OAuthError) in
            try endpoint.refreshTokenGrant(request, client: client)
        },
        Client.GrantType.clientCredentials.rawValue: { endpoint, request, client throws(OAuthError) in
            try endpoint.clientCredentialsGrant(request, client: client)
        },
        Client.GrantType.password.rawValue: { endpoint, request, client throws(OAuthError) in
            try endpoint.passwordGrant(request, client: client, realmRequired: false)
        },
        Client.GrantType.passwordRealm.rawValue: { endpoint, request, client throws(OAuthError) in
            try endpoint.passwordGrant(request, client: client, realmRequired: true)
        },
    ]

    /// Runs every phase; the web layer renders the response or the error (`jsonBody`, `httpStatus`,
    /// `wwwAuthenticate(.basic, …)`).
    public func handle(_ request: TokenRequest) throws(OAuthError) -> TokenResponse {
        let client = try ClientAuthenticator.authenticate(request, clients: clients)
        let handler = try dispatch(request, client: client)
        let issuance = try handler(self, request, client)
        return try minter.response(for: issuance)
    }

    /// Phase (b): missing → `invalid_request`; a known grant the client may not use →
    /// `unauthorized_client`; anything not implemented here → `unsupported_grant_type`.
    func dispatch(_ request: TokenRequest, client: AuthenticatedClient) throws(OAuthError) -> GrantHandler {
        guard let grantType = request["grant_type"], !grantType.isEmpty else {
            throw OAuthError(.invalidRequest, "grant_type is required")
        }
        if let known = Client.GrantType(rawValue: grantType), !client.client.grantTypes.contains(known) {
            throw OAuthError(.unauthorizedClient, "the application may not use the \(grantType) grant")
        }
        guard let handler = Self.grantHandlers[grantType] else {
            throw OAuthError(.unsupportedGrantType, "unsupported grant_type", detail: "grant_type \(grantType)")
        }
        return handler
    }

    // MARK: - authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.6, RFC 9700 §4.8.2)

    func authorizationCodeGrant(_ request: TokenRequest, client: AuthenticatedClient) throws(OAuthError) -> TokenIssuance {
        guard let code = request["code"], !code.isEmpty else { throw OAuthError(.invalidRequest, "code is required") }
        let now = clock.now
        let stored = try redeemCode(code, at: now)
        try checkCodeExpiry(stored, now: now)
        try checkCodeClient(stored, client: client.client)
        try checkCodeRedirectURI(stored, redirectURI: request["redirect_uri"])
        try checkCodeVerifier(stored, verifier: request["code_verifier"])
        let user = try activeUser(stored.userID)

        let grant = Grant(grantID: Random.token(bytes: 16), clientID: stored.clientID, userID: stored.userID,
                          sessionID: stored.sessionID, scope: stored.scope, audience: stored.audience,
                          authTime: stored.authTime, createdAt: now)
        do {
            try grants.create(grant)
            try codes.attachGrant(codeHash: stored.codeHash, grantID: grant.grantID)
        } catch {
            throw OAuthError(storage: error)
        }
        let scopes = AuthorizationRequest.canonicalScopes(stored.scope)
        var refreshToken: String?
        if issuesRefreshToken(scopes: scopes, client: client.client) {
            refreshToken = try issueFirstRefreshToken(grant: grant, client: client.client, userID: stored.userID, now: now)
        }
        return TokenIssuance(client: client.client, user: user, grant: grant,
                             scopes: scopes, audience: stored.audience,
                             nonce: stored.nonce, authTime: stored.authTime, sessionID: stored.sessionID, refreshToken: refreshToken)
    }

    /// Marks the code used (atomically, before any other check, so a failed attempt burns it).
    /// A replay revokes the grant the code issued (RFC 6749 §4.1.2).
    func redeemCode(_ code: String, at now: Date) throws(OAuthError) -> AuthorizationCode {
        let codeHash = CodeIssuer.hash(code)
        let redemption: CodeRedemption
        do {
            redemption = try codes.redeem(codeHash: codeHash, at: now)
        } catch {
            throw OAuthError(storage: error)
        }
        switch redemption {
        case .redeemed(let stored):
            return stored
        case .replayed(let stored):
            if let grantID = stored.grantID {
                do {
                    try grants.revoke(grantID: grantID, at: now, reason: "authorization code replayed")
                } catch {
                    throw OAuthError(storage: error)
                }
            }
            throw OAuthError(.invalidGrant, "the authorization code is invalid", detail: "code replayed; grant \(stored.grantID ?? "none") revoked")
        case .unknown:
            throw OAuthError(.invalidGrant, "the authorization code is invalid", detail: "unknown code")
        }
    }

    func checkCodeExpiry(_ code: AuthorizationCode, now: Date) throws(OAuthError) {
        guard now < code.expiresAt else {
            throw OAuthError(.invalidGrant, "the authorization code is invalid", detail: "code expired")
        }
    }

    /// RFC 6749 §4.1.3: the code was issued to the authenticated client.
    func checkCodeClient(_ code: AuthorizationCode, client: Client) throws(OAuthError) {
        guard Array(code.clientID.utf8) == Array(client.clientID.utf8) else {
            throw OAuthError(.invalidGrant, "the authorization code is invalid", detail: "code of \(code.clientID) used by \(client.clientID)")
        }
    }

    /// RFC 6749 §4.1.3: `redirect_uri` byte-equal to the one sent to /authorize.
    func checkCodeRedirectURI(_ code: AuthorizationCode, redirectURI: String?) throws(OAuthError) {
        guard let redirectURI, Array(redirectURI.utf8) == Array(code.redirectURI.utf8) else {
            throw OAuthError(.invalidGrant, "redirect_uri does not match the authorization request")
        }
    }

    /// RFC 7636 §4.6; a verifier without a stored challenge is a downgrade (RFC 9700 §4.8.2).
    func checkCodeVerifier(_ code: AuthorizationCode, verifier: String?) throws(OAuthError) {
        guard let challenge = code.codeChallenge else {
            if verifier != nil {
                throw OAuthError(.invalidGrant, "code_verifier sent but the authorization request had no code_challenge")
            }
            return
        }
        guard let verifier else { throw OAuthError(.invalidGrant, "code_verifier is required") }
        guard code.codeChallengeMethod == PKCE.s256, PKCE.verify(verifier: verifier, challenge: challenge) else {
            throw OAuthError(.invalidGrant, "code_verifier does not match the code_challenge")
        }
    }

    /// The user still exists and is not blocked (D08).
    func activeUser(_ userID: String) throws(OAuthError) -> User {
        let found: User?
        do {
            found = try users.find(userID: userID)
        } catch {
            throw OAuthError(storage: error)
        }
        guard let user = found, !user.blocked else {
            throw OAuthError(.invalidGrant, "the authorization code is invalid", detail: "user \(userID) missing or blocked")
        }
        return user
    }
}
