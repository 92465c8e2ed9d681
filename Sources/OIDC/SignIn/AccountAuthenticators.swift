import Model

// The login page's self-service steps (README "Accounts"): each is an authenticator of the
// sign-in flow, deciding through `SelfService` as the JSON endpoints do. Messages are keys of
// the page catalogue (`LoginMessages`), so the page says them in the user's language.

/// Keys of the page texts the steps ask for; the web layer's catalogue has each in every language.
public enum LoginMessages {
    public static let codeSentVerify = "notice.code_sent_verify"
    public static let verifyRequired = "notice.verify_required"
    public static let codeSentReset = "notice.code_sent_reset"
    public static let codeSentPasswordless = "notice.code_sent_passwordless"
    public static let codeResent = "notice.code_resent"
    public static let wrongCode = "error.wrong_code"
    public static let leakedPassword = "error.leaked_password"
    public static let reusedPassword = "error.reused_password"
    public static let existingEmail = "error.invalid_signup"
    public static let invalidEmail = "error.invalid_email"
    public static let tooManyRequests = "error.too_many_requests"
    public static let unavailable = "error.unavailable"
    public static let verificationUnavailable = "error.verification_unavailable"
    public static let userBlocked = "error.user_blocked"
    /// A connection button the application does not (or no longer) offer.
    public static let connectionUnavailable = "error.connection_unavailable"
    /// The provider could not be reached, or its answer was refused.
    public static let upstreamFailed = "error.upstream_failed"

    /// "error.weak_password.fair": what the level asks for.
    public static func weakPassword(_ policy: PasswordPolicy) -> String { "error.weak_password." + policy.rawValue }

    /// The page message for a refusal of `SelfService`, and the field it is about.
    public static func forRefusal(_ error: AccountError, policy: PasswordPolicy) -> (key: String, field: String?) {
        switch (error.code, error.name) {
        case ("invalid_password", "PasswordHistoryError"): (reusedPassword, "password")
        case ("invalid_password", _): (weakPassword(policy), "password")
        case ("password_leaked", _): (leakedPassword, "password")
        case ("invalid_signup", _): (existingEmail, "email")
        case ("invalid_request", _): (invalidEmail, "email")
        case ("invalid_grant", _): (wrongCode, "code")
        case ("too_many_attempts", _): (tooManyRequests, nil)
        case ("unauthorized", "UnauthorizedError") where error.description == CredentialMessages.userBlocked: (userBlocked, nil)
        default: (unavailable, nil)
        }
    }
}

extension LoginSubmission {
    /// The posted email, trimmed and bounded (what the page shows back).
    var email: String { String((fields["email"] ?? "").trimmingWhitespace().prefix(254)) }
    /// The best language for a message.
    var mailLocale: String { locales.first ?? "en" }
}

/// "Sign up" (`action=signup`): email and new password. Signed in at once, or — when the
/// application requires a confirmed address — on to the code step for the new user.
public struct SignupAuthenticator: Authenticator {
    public let selfService: SelfService
    public var actions: Set<String> { ["signup"] }

    public init(selfService: SelfService) { self.selfService = selfService }

    public func authenticate(_ submission: LoginSubmission, context: inout RequestContext) throws(OAuthError) -> Authentication {
        let request = SelfService.SignupRequest(email: submission.email, password: submission.fields["password"] ?? "")
        do {
            let user = try selfService.signup(request, client: submission.client, locale: submission.mailLocale, context: &context)
            if submission.client.requireEmailVerification {
                guard selfService.deliversMail else {
                    return .step(.password, error: LoginMessages.verificationUnavailable)
                }
                return .step(.verifyEmail(email: user.email), notice: LoginMessages.codeSentVerify, pendingUserID: user.userID)
            }
            return .authenticated(user, rehashedPassword: nil, clearedThrottleKeys: [])
        } catch {
            let (key, field) = LoginMessages.forRefusal(error, policy: selfService.passwords.policy)
            if error.status >= 500 { throw OAuthError(.temporarilyUnavailable, "signup failed", detail: error.detail) }
            return .step(.signup, error: key, errorField: field, email: submission.email)
        }
    }
}

/// The code that confirms the address (`action=verify_email`, `resend_code`), for the user the
/// transaction already proved (sealed in its cookie).
public struct EmailVerificationAuthenticator: Authenticator {
    public let selfService: SelfService
    public let users: any UserStore
    public var actions: Set<String> { ["verify_email", "resend_code"] }

    public init(selfService: SelfService, users: any UserStore) {
        self.selfService = selfService
        self.users = users
    }

    /// The password was right but the address is not confirmed: send a code and ask for it.
    static func start(for user: User, submission: LoginSubmission, selfService: SelfService?,
                      context: inout RequestContext) -> Authentication {
        guard let selfService, selfService.deliversMail else { return .step(.password, error: LoginMessages.verificationUnavailable) }
        do {
            try selfService.sendVerification(to: user, client: submission.client, locale: submission.mailLocale, context: &context)
        } catch {
            let (key, _) = LoginMessages.forRefusal(error, policy: selfService.passwords.policy)
            return .step(.password, error: key)
        }
        return .step(.verifyEmail(email: user.email), notice: LoginMessages.verifyRequired, pendingUserID: user.userID)
    }

    public func authenticate(_ submission: LoginSubmission, context: inout RequestContext) throws(OAuthError) -> Authentication {
        guard let userID = submission.pendingUserID,
              let user = try storage({ () throws(StorageError) in try users.find(userID: userID) }) else {
            return .step(.password)
        }
        if submission.action == "resend_code" {
            do {
                try selfService.sendVerification(to: user, client: submission.client, locale: submission.mailLocale, context: &context)
            } catch {
                let (key, _) = LoginMessages.forRefusal(error, policy: selfService.passwords.policy)
                return .step(.verifyEmail(email: user.email), error: key)
            }
            return .step(.verifyEmail(email: user.email), notice: LoginMessages.codeResent)
        }
        do {
            let verified = try selfService.verifyEmail(of: user, code: submission.fields["code"] ?? "", context: &context)
            return .authenticated(verified, rehashedPassword: nil, clearedThrottleKeys: [])
        } catch {
            let (key, field) = LoginMessages.forRefusal(error, policy: selfService.passwords.policy)
            return .step(.verifyEmail(email: user.email), error: key, errorField: field)
        }
    }
}

/// "Forgot password?": the address (`action=reset_request`), then the code and the new password
/// (`action=reset_password`), after which the user is signed in with it.
public struct PasswordResetAuthenticator: Authenticator {
    public let selfService: SelfService
    public var actions: Set<String> { ["reset_request", "reset_password"] }

    public init(selfService: SelfService) { self.selfService = selfService }

    public func authenticate(_ submission: LoginSubmission, context: inout RequestContext) throws(OAuthError) -> Authentication {
        let email = submission.email
        do {
            if submission.action == "reset_request" {
                try selfService.requestPasswordReset(email: email, client: submission.client, locale: submission.mailLocale, link: false,
                                                     context: &context)
                return .step(.resetPassword(email: email), notice: LoginMessages.codeSentReset)
            }
            let user = try selfService.resetPassword(email: email, code: submission.fields["code"] ?? "",
                                                     newPassword: submission.fields["password"] ?? "", context: &context)
            guard !user.blocked else { return .step(.password, error: LoginMessages.userBlocked) }
            return .authenticated(user, rehashedPassword: nil, clearedThrottleKeys: [])
        } catch {
            if error.status >= 500 { throw OAuthError(.temporarilyUnavailable, "password reset failed", detail: error.detail) }
            let (key, field) = LoginMessages.forRefusal(error, policy: selfService.passwords.policy)
            let view: LoginView = submission.action == "reset_request" ? .forgotPassword : .resetPassword(email: email)
            return .step(view, error: key, errorField: field, email: email)
        }
    }
}

/// "Email me a code": the address (`action=passwordless_start`), then the code
/// (`action=passwordless_verify`). A new address becomes a user only where signup is allowed.
public struct PasswordlessAuthenticator: Authenticator {
    public let selfService: SelfService
    public var actions: Set<String> { ["passwordless_start", "passwordless_verify"] }

    public init(selfService: SelfService) { self.selfService = selfService }

    public func authenticate(_ submission: LoginSubmission, context: inout RequestContext) throws(OAuthError) -> Authentication {
        let email = submission.email
        do {
            if submission.action == "passwordless_start" {
                try selfService.startPasswordless(email: email, client: submission.client, locale: submission.mailLocale, context: &context)
                return .step(.passwordlessCode(email: email), notice: LoginMessages.codeSentPasswordless)
            }
            let user = try selfService.verifyPasswordless(email: email, code: submission.fields["code"] ?? "", client: submission.client,
                                                          context: &context)
            return .authenticated(user, rehashedPassword: nil, clearedThrottleKeys: [])
        } catch {
            if error.status >= 500 { throw OAuthError(.temporarilyUnavailable, "passwordless sign-in failed", detail: error.detail) }
            let (key, field) = LoginMessages.forRefusal(error, policy: selfService.passwords.policy)
            let view: LoginView = submission.action == "passwordless_start" ? .passwordlessEmail : .passwordlessCode(email: email)
            return .step(view, error: key, errorField: field, email: email)
        }
    }
}
