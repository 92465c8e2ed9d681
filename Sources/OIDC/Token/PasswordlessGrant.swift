import FoundationEssentials
import Model

extension TokenEndpoint {
    /// Auth0's `http://auth0.com/oauth/grant-type/passwordless/otp` with `realm=email`,
    /// `username` and `otp`: the code from `/passwordless/start` (`SelfService`). A wrong, used,
    /// expired or exhausted code is Auth0's `invalid_grant` "Wrong email or verification code."
    /// (Auth0.swift `isInvalidCredentials`); the code dies after a few wrong tries.
    func passwordlessGrant(_ request: TokenRequest, client: AuthenticatedClient,
                           context: inout RequestContext) throws(OAuthError) -> GrantDraft {
        guard let selfService, let signIns = passwordGrants?.signIns else {
            throw OAuthError(.unsupportedGrantType, "unsupported grant_type", detail: "passwordless is not configured")
        }
        if request["auth_session"] != nil {
            throw OAuthError(.invalidRequest, "auth_session is not supported; send realm=email, username and otp")
        }
        guard let realm = request["realm"], realm == "email" else {
            throw OAuthError(.invalidRequest, "realm must be email", detail: "realm \(request["realm"] ?? "(none)")")
        }
        guard let username = request["username"], !username.isEmpty, let otp = request["otp"], !otp.isEmpty else {
            throw OAuthError(.invalidRequest, "username and otp are required")
        }
        let user: User
        do {
            user = try selfService.verifyPasswordless(email: username, code: otp, client: client.client, context: &context)
        } catch {
            throw OAuthError(passwordless: error)
        }
        let now = clock.now
        let event = SignInEvent(.loginSucceeded, userID: user.userID, clientID: client.client.clientID, details: ["channel": "passwordless"])
        return resourceOwnerDraft(user: user, completion: LoginCompletion(userID: user.userID, time: now, rehashedPassword: nil,
                                                                          clearedThrottleKeys: []),
                                  request: request, client: client, event: event, signIns: signIns)
    }
}

extension OAuthError {
    /// A refused code in the token endpoint's terms.
    init(passwordless error: AccountError) {
        switch error.code {
        case "invalid_grant": self.init(.invalidGrant, AccountError.wrongCode.description)
        case "too_many_attempts": self.init(.tooManyAttempts, error.description)
        case "unauthorized": self.init(.unauthorized, error.description)
        case "invalid_request": self.init(.invalidRequest, error.description)
        case "temporarily_unavailable": self.init(.temporarilyUnavailable, error.description, detail: error.detail)
        default: self.init(.serverError, "internal error", detail: error.detail ?? error.description)
        }
    }
}
