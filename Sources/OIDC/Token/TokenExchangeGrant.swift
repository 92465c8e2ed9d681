import FoundationEssentials
import Model

extension TokenEndpoint {
    /// RFC 8693's grant type, the value of `grant_type`.
    static let tokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// RFC 8693 §3: an OpenID Connect ID token.
    static let idTokenType = "urn:ietf:params:oauth:token-type:id_token"
    /// Auth0's type for Apple's native authorization code (Auth0.swift `login(appleAuthorizationCode:)`).
    static let appleCodeType = "http://auth0.com/oauth/token-type/apple-authz-code"

    /// Native Sign in with Apple and Google (README "Sign in with Apple and Google"): the app's
    /// ID token or Apple code is verified in this phase (`NativeSignIn`); the identity is found,
    /// linked or created only after the scope-and-audience phase agreed, so a refused request
    /// creates nothing. Then Gatehouse's own tokens, as for any sign-in.
    func tokenExchangeGrant(_ request: TokenRequest, client: AuthenticatedClient,
                            context: inout RequestContext) throws(OAuthError) -> GrantDraft {
        guard let nativeSignIn, let signIns = passwordGrants?.signIns else {
            throw OAuthError(.unsupportedGrantType, "unsupported grant_type", detail: "native sign-in is not configured")
        }
        guard let subject = request["subject_token"], !subject.isEmpty, subject.utf8.count <= 16_384 else {
            throw OAuthError(.invalidRequest, "subject_token is required")
        }
        let kind = request["subject_token_type"]
        guard let kind else { throw OAuthError(.invalidRequest, "subject_token_type is required") }
        guard kind == Self.idTokenType || kind == Self.appleCodeType else {
            throw OAuthError(.invalidRequest, "unsupported subject_token_type", detail: "subject_token_type \(kind)")
        }
        let verified: NativeSignIn.Verified
        do throws(UpstreamError) {
            verified = kind == Self.idTokenType
                ? try nativeSignIn.verifyIDToken(subject, nonce: request["nonce"], connection: request["connection"], client: client.client)
                : try nativeSignIn.redeemAppleCode(subject, userProfile: request["user_profile"], connection: request["connection"],
                                                   client: client.client)
        } catch {
            context.record(.upstreamFailed, clientID: client.client.clientID, details: ["reason": error.description, "channel": "token_exchange"])
            throw OAuthError(nativeSignIn: error)
        }
        let clientID = client.client.clientID
        let rule = ScopeRule.user(scope: ScopeList.tokens(request["scope"] ?? "openid"), audience: request["audience"])
        // The user is known only once `finish` ran: the event names it then (`TokenEndpoint.handle`).
        let event = SignInEvent(.loginSucceeded, clientID: clientID, details: ["channel": "token_exchange", "connection": verified.connection.name])
        return GrantDraft(rule: rule, reportedOnSuccess: [event]) { decision throws(OAuthError) in
            let now = clock.now
            let user: User
            do throws(UpstreamError) {
                user = try nativeSignIn.upstream.signIn(verified.claims, connection: verified.connection, now: now)
                try nativeSignIn.upstream.keep(verified.refreshToken, of: verified.claims, connection: verified.connection,
                                               clientID: verified.redeemedBy ?? verified.connection.clientID, now: now)
            } catch {
                throw OAuthError(nativeSignIn: error)
            }
            guard !user.blocked else { throw OAuthError(.unauthorized, CredentialMessages.userBlocked) }
            try storage { () throws(StorageError) in
                try signIns.completeLogin(LoginCompletion(userID: user.userID, time: now, rehashedPassword: nil, clearedThrottleKeys: []))
            }
            return try issueUserGrant(user: user, at: now, decision: decision, client: client)
        }
    }
}

extension OAuthError {
    /// A refused native sign-in in the token endpoint's terms: what the app sent is wrong →
    /// `invalid_grant` or `invalid_request`, naming the failed check for its developer.
    init(nativeSignIn error: UpstreamError) {
        switch error {
        case .invalidIDToken(let why): self.init(.invalidGrant, "the ID token was refused: \(why)")
        case .codeRefused: self.init(.invalidGrant, "the Apple authorization code was refused (used, expired or not issued to this app)",
                                     detail: error.description)
        case .connection(let why): self.init(.invalidRequest, why)
        case .request(let why): self.init(.invalidRequest, why)
        case .unreachable(let why): self.init(.temporarilyUnavailable, "the identity provider cannot be reached", detail: why)
        case .storage(let why): self.init(.serverError, "internal error", detail: why)
        case .invalidCallback(let why), .declined(let why): self.init(.invalidGrant, why)
        }
    }
}
