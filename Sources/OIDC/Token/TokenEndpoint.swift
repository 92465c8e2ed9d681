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
    /// The signing algorithm of the API the audience names; its JWT access token is signed with it.
    public var apiSigningAlgorithm: String? = nil
    /// Set by a session transfer: minting takes `TokenMinter.sessionTransferResponse` (SessionTransferGrant.swift).
    public var sessionTransfer: SessionTransferIssuance? = nil

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

/// A grant's own checks are done; what it asks of the scope-and-audience phase, and the writes it
/// makes once that phase has decided (so a refused scope or audience leaves nothing behind).
struct GrantDraft {
    let rule: ScopeRule
    /// Sign-in outcomes to report only once the writes succeeded; one without a user id is about
    /// the issued user (a token exchange finds or creates its user only in `finish`).
    var reportedOnSuccess: [SignInEvent] = []
    let finish: (ScopeDecision) throws(OAuthError) -> TokenIssuance
}

/// The token endpoint's fixed phases (RFC 6749 §3.2, §4.1.3, §5), which no grant can skip:
///
/// 1. client authentication (`ClientAuthenticator`);
/// 2. grant dispatch from a table by `grant_type`;
/// 3. the grant's own checks (code, refresh token, credentials), which return a `GrantDraft`;
/// 4. scope and audience (`ScopePhase.swift`), one rule per kind of grant;
/// 5. the grant's writes (grant record, refresh token);
/// 6. minting.
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
    /// Registered APIs and client grants: the audiences user grants may ask for, and client_credentials.
    /// nil → no API is registered.
    public var apis: (any APIStore)?
    /// The resource-owner password grants; nil → unsupported.
    public var passwordGrants: PasswordGrantPolicy?
    /// Passwordless codes (with `passwordGrants` for the login commit); nil → unsupported.
    public var selfService: SelfService?
    /// The native token exchange of upstream connections (with `passwordGrants` for the login commit); nil → unsupported.
    public var nativeSignIn: NativeSignIn?
    /// Native-to-web session transfer tokens (a refresh with the transfer audience); nil → refused.
    public var sessionTransfers: SessionTransfers?

    public init(issuer: String, clients: any ClientStore, codes: any AuthorizationCodeStore, grants: any GrantStore,
                users: any UserStore, clock: any Clock, minter: TokenMinter, refreshTokens: RefreshTokens? = nil,
                apis: (any APIStore)? = nil, passwordGrants: PasswordGrantPolicy? = nil) {
        self.issuer = issuer
        self.clients = clients
        self.codes = codes
        self.grants = grants
        self.users = users
        self.clock = clock
        self.minter = minter
        self.refreshTokens = refreshTokens
        self.apis = apis
        self.passwordGrants = passwordGrants
    }

    typealias GrantHandler = @Sendable (TokenEndpoint, TokenRequest, AuthenticatedClient, inout RequestContext) throws(OAuthError) -> GrantDraft

    /// The grants implemented here, by `grant_type`.
    static let grantHandlers: [String: GrantHandler] = [
        Client.GrantType.authorizationCode.rawValue: { endpoint, request, client, _ throws(OAuthError) in
            try endpoint.authorizationCodeGrant(request, client: client)
        },
        Client.GrantType.refreshToken.rawValue: { endpoint, request, client, context throws(OAuthError) in
            try endpoint.refreshOrSessionTransfer(request, client: client, context: &context)
        },
        Client.GrantType.clientCredentials.rawValue: { endpoint, request, client, _ throws(OAuthError) in
            try endpoint.clientCredentialsGrant(request, client: client)
        },
        Client.GrantType.password.rawValue: { endpoint, request, client, context throws(OAuthError) in
            try endpoint.passwordGrant(request, client: client, realmRequired: false, context: &context)
        },
        Client.GrantType.passwordRealm.rawValue: { endpoint, request, client, context throws(OAuthError) in
            try endpoint.passwordGrant(request, client: client, realmRequired: true, context: &context)
        },
        Client.GrantType.passwordlessOTP.rawValue: { endpoint, request, client, context throws(OAuthError) in
            try endpoint.passwordlessGrant(request, client: client, context: &context)
        },
        TokenEndpoint.tokenExchange: { endpoint, request, client, context throws(OAuthError) in
            try endpoint.tokenExchangeGrant(request, client: client, context: &context)
        },
    ]

    /// Runs every phase; the web layer renders the response or the error (`jsonBody`, `httpStatus`,
    /// `wwwAuthenticate(.basic, …)`) and records `context.events`.
    public func handle(_ request: TokenRequest, context: inout RequestContext) throws(OAuthError) -> TokenResponse {
        let client = try ClientAuthenticator.authenticate(request, clients: clients)
        let handler = try dispatch(request, client: client)
        let draft = try handler(self, request, client, &context)
        let decision = try decideScope(draft.rule)
        var issuance = try draft.finish(decision)
        issuance.apiSigningAlgorithm = decision.apiSigningAlgorithm
        context.events += draft.reportedOnSuccess.map { event in
            var event = event
            if event.userID == nil { event.userID = issuance.user.userID }
            return event
        }
        return try minter.response(for: issuance)
    }

    /// `handle` for a caller with no request context to give (tests, tools).
    public func handle(_ request: TokenRequest) throws(OAuthError) -> TokenResponse {
        var context = RequestContext(clientIP: "")
        return try handle(request, context: &context)
    }

    /// Phase 2: missing → `invalid_request`; a known grant the client may not use →
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
}
