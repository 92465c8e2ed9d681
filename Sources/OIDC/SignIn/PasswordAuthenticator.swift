import Model

/// The login form's email and password (`action=login`), checked by the one `CredentialCheck`
/// the password grants use too.
public struct PasswordAuthenticator: Authenticator {
    public let credentials: CredentialCheck
    public var actions: Set<String> { ["login"] }

    /// Exactly Auth0's text for a failed login.
    public static let wrongCredentials = "Wrong email or password."

    public init(credentials: CredentialCheck) {
        self.credentials = credentials
    }

    public func authenticate(_ submission: LoginSubmission, context: inout RequestContext) throws(OAuthError) -> Authentication {
        let email = (submission.fields["email"] ?? "").trimmingWhitespace()
        let password = submission.fields["password"] ?? ""
        let verdict = try storage { () throws(StorageError) in
            try credentials.check(email: email, password: password, ip: context.clientIP)
        }
        switch verdict {
        case .verified(let user, let rehashed, let throttleKey):
            return .authenticated(user, rehashedPassword: rehashed, clearedThrottleKeys: [throttleKey])
        case .rejected, .pairLocked:
            context.events.append(verdict.event(clientID: submission.client.clientID, channel: nil))
            return .retry(message: Self.wrongCredentials, email: email)
        case .addressLocked(let retryAfter):
            context.events.append(verdict.event(clientID: submission.client.clientID, channel: nil))
            return .throttled(retryAfter: retryAfter)
        }
    }
}
