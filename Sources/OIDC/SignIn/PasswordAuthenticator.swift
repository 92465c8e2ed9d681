import Model

/// The login form's email and password (`action=login`), checked by the one `CredentialCheck`
/// the password grants use too.
public struct PasswordAuthenticator: Authenticator {
    public let credentials: CredentialCheck
    /// Sends the code when an application requires a confirmed address and this one is not yet.
    public var selfService: SelfService?
    public var actions: Set<String> { ["login"] }

    /// The page's message for a failed login (its English text is Auth0's "Wrong email or password.").
    public static let wrongCredentials = "error.wrong_credentials"
    /// What a blocked user sees once the password was right.
    public static let userBlocked = LoginMessages.userBlocked

    public init(credentials: CredentialCheck) {
        self.credentials = credentials
    }

    public func authenticate(_ submission: LoginSubmission, context: inout RequestContext) throws(OAuthError) -> Authentication {
        let email = (submission.fields["email"] ?? "").trimmingWhitespace()
        let password = submission.fields["password"] ?? ""
        let verdict = try storage { () throws(StorageError) in
            try credentials.check(email: email, password: password, ip: context.clientIP)
        }
        if case .verified(let user, let rehashed, let throttleKey) = verdict {
            if submission.client.requireEmailVerification && !user.emailVerified {
                return EmailVerificationAuthenticator.start(for: user, submission: submission, selfService: selfService, context: &context)
            }
            return .authenticated(user, rehashedPassword: rehashed, clearedThrottleKeys: [throttleKey])
        }
        context.events.append(verdict.event(clientID: submission.client.clientID, channel: nil))
        switch verdict {
        case .verified, .rejected:
            return .retry(message: Self.wrongCredentials, email: email)
        case .blocked:
            return .retry(message: Self.userBlocked, email: email)
        case .pairLocked(let retryAfter, _), .accountDelayed(let retryAfter, _):
            return .retry(message: CredentialMessages.accountBlocked(retryAfter: retryAfter), email: email)
        case .addressLocked(let retryAfter):
            return .throttled(retryAfter: retryAfter)
        }
    }
}
