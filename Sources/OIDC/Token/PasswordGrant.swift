import Crypto
import FoundationEssentials
import Model

/// Auth0's resource-owner grants for applications with their own native login form:
/// `password` and `http://auth0.com/oauth/grant-type/password-realm`. Off unless the
/// application lists the grant; wrong credentials get Auth0's exact answer, which
/// Auth0.swift recognises: `invalid_grant` "Wrong email or password.".
public struct PasswordGrantPolicy: Sendable {
    /// The login page's credential check and throttling.
    public let credentials: CredentialCheck
    /// Commits the successful login (login count, rehash, throttle reset).
    public let signIns: any SignInStore
    /// The user database's name; a `realm` must equal it.
    public let connection: String

    public init(credentials: CredentialCheck, signIns: any SignInStore, connection: String) {
        self.credentials = credentials
        self.signIns = signIns
        self.connection = connection
    }
}

extension TokenEndpoint {
    /// The credentials are checked like the login page's, from the request's client address; the
    /// scope and audience then pass the user rule (an unregistered `audience` is refused as
    /// `/authorize` refuses it).
    func passwordGrant(_ request: TokenRequest, client: AuthenticatedClient, realmRequired: Bool,
                       context: inout RequestContext) throws(OAuthError) -> GrantDraft {
        guard let policy = passwordGrants else {
            throw OAuthError(.unsupportedGrantType, "unsupported grant_type", detail: "password grants are not configured")
        }
        guard let username = request["username"], !username.isEmpty, let password = request["password"], !password.isEmpty else {
            throw OAuthError(.invalidRequest, "username and password are required")
        }
        if realmRequired || request["realm"] != nil {
            guard let realm = request["realm"], TokenInspection.same(realm, policy.connection) else {
                throw OAuthError(.invalidRequest, "unknown realm; use \(policy.connection)", detail: "realm \(request["realm"] ?? "(none)")")
            }
        }
        let clientID = client.client.clientID
        let verdict = try storage { () throws(StorageError) in
            try policy.credentials.check(email: username, password: password, ip: context.clientIP)
        }
        let event = verdict.event(clientID: clientID, channel: "password_grant")
        if case .verified = verdict {} else { context.events.append(event) }
        let user: User
        let completion: LoginCompletion
        let now = clock.now
        switch verdict {
        case .verified(let found, let rehashed, let throttleKey):
            user = found
            completion = LoginCompletion(userID: found.userID, time: now, rehashedPassword: rehashed, clearedThrottleKeys: [throttleKey])
        case .rejected:
            throw OAuthError(.invalidGrant, CredentialMessages.wrongCredentials)
        case .blocked:
            throw OAuthError(.unauthorized, CredentialMessages.userBlocked)
        case .pairLocked(let retryAfter, _), .accountDelayed(let retryAfter, _):
            throw OAuthError(.tooManyAttempts, CredentialMessages.accountBlocked(retryAfter: retryAfter))
        case .addressLocked:
            throw OAuthError(.tooManyAttempts, CredentialMessages.addressThrottled)
        }
        if client.client.requireEmailVerification && !user.emailVerified {
            // The password was right: the attempt must not count towards a lock.
            try storage { () throws(StorageError) in
                for key in completion.clearedThrottleKeys { try policy.credentials.throttle.store.clear(key: key) }
            }
            throw OAuthError(.requiresVerification, "Please verify your email before signing in.", detail: "email not verified")
        }
        return resourceOwnerDraft(user: user, completion: completion, request: request, client: client, event: event,
                                  signIns: policy.signIns)
    }

    /// The shared end of the resource-owner grants (password, password-realm, passwordless): the
    /// user rule for scope and audience, then the login commit, the grant and a refresh token.
    func resourceOwnerDraft(user: User, completion: LoginCompletion, request: TokenRequest, client: AuthenticatedClient,
                            event: SignInEvent, signIns: any SignInStore) -> GrantDraft {
        let rule = ScopeRule.user(scope: ScopeList.tokens(request["scope"] ?? "openid"), audience: request["audience"])
        // The success is reported once it is committed, after the scope-and-audience phase.
        return GrantDraft(rule: rule, reportedOnSuccess: [event]) { decision throws(OAuthError) in
            try storage { () throws(StorageError) in try signIns.completeLogin(completion) }
            return try issueUserGrant(user: user, at: completion.time, decision: decision, client: client)
        }
    }

    /// A new grant for a user who just signed in at `now`, and its first refresh token when the scope asks for one.
    func issueUserGrant(user: User, at now: Date, decision: ScopeDecision, client: AuthenticatedClient) throws(OAuthError) -> TokenIssuance {
        let grant = Grant(grantID: Random.token(bytes: 16), clientID: client.client.clientID, userID: user.userID, sessionID: nil,
                          scope: decision.scopes.joined(separator: " "), audience: decision.audience, authTime: now, createdAt: now)
        try storage { () throws(StorageError) in try grants.create(grant) }
        var refreshToken: String?
        if issuesRefreshToken(scopes: decision.scopes, client: client.client) {
            refreshToken = try issueFirstRefreshToken(grant: grant, client: client.client, userID: user.userID, now: now)
        }
        return TokenIssuance(client: client.client, user: user, grant: grant, scopes: decision.scopes, audience: decision.audience,
                             nonce: nil, authTime: now, sessionID: nil, refreshToken: refreshToken)
    }
}
