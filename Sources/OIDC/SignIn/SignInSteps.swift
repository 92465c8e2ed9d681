/// Which form of the sign-in the page shows.
public enum LoginView: Sendable, Equatable {
    /// Email and password (the default).
    case password
    /// Email and a new password.
    case signup
    /// The code sent to confirm the address.
    case verifyEmail(email: String)
    /// The address to send a reset code to.
    case forgotPassword
    /// The reset code and the new password.
    case resetPassword(email: String)
    /// The address to send a sign-in code to.
    case passwordlessEmail
    /// The sign-in code.
    case passwordlessCode(email: String)
}

/// The ways in the login page offers besides the password, per application and configuration.
public struct LoginOffers: Sendable, Equatable {
    /// "Sign up": the application allows signup.
    public var signup: Bool
    /// "Forgot password?": email delivery is configured.
    public var passwordReset: Bool
    /// "Email me a code": the application has the passwordless grant and email is configured.
    public var passwordless: Bool

    /// The application's upstream connections, as buttons in order.
    public var connections: [ConnectionOffer]

    public init(signup: Bool = false, passwordReset: Bool = false, passwordless: Bool = false, connections: [ConnectionOffer] = []) {
        self.signup = signup
        self.passwordReset = passwordReset
        self.passwordless = passwordless
        self.connections = connections
    }
}

/// The login form as the flow wants it shown; the web layer renders it (`Server/Web/LoginPage`).
public struct LoginScreen: Sendable, Equatable {
    /// The login transaction's id, posted back as `tx`; the transaction itself is sealed in its cookie.
    public var transactionID: String
    /// The raw token whose SHA-256 the transaction stores, posted back as `csrf_token`.
    public var csrfToken: String
    public var appName: String
    /// Pre-fill: `login_hint`, or what the user typed before an error.
    public var email: String?
    public var errorMessage: String?
    /// The validated callback the sign-in ends on (the page's CSP `form-action` must allow it).
    public var redirectURI: String
    /// Set for a new transaction: the web layer sets its cookie for this many seconds.
    public var newTransactionMaxAge: Int?
    /// The new transaction's sealed cookie value (`TransactionSeal`).
    public var transactionCookie: String?
    public var view: LoginView = .password
    public var offers = LoginOffers()
    /// Information for the user (not an error), e.g. "We sent a code to …".
    public var notice: String?
    /// The field the error is about (`email`, `password`, `code`), shown next to it.
    public var errorField: String?
    /// The page's language preferences, best first (`ui_locales`, then `Accept-Language`).
    public var locales: [String] = []
    /// The application's branding (`Client.logoURL`, `Client.accentColor`), shown on the page.
    public var logoURL: String?
    public var accentColor: String?
    /// How the answer goes back: a `web_message` sign-in runs in a popup that must keep its opener.
    public var responseMode: AuthorizationRequest.ResponseMode = .query

    public init(transactionID: String, csrfToken: String, appName: String, email: String? = nil, errorMessage: String? = nil,
                redirectURI: String, newTransactionMaxAge: Int? = nil, transactionCookie: String? = nil) {
        self.transactionID = transactionID
        self.csrfToken = csrfToken
        self.appName = appName
        self.email = email
        self.errorMessage = errorMessage
        self.redirectURI = redirectURI
        self.newTransactionMaxAge = newTransactionMaxAge
        self.transactionCookie = transactionCookie
    }
}

/// What `GET|POST /authorize` does (`SignInFlow.authorize`).
public enum AuthorizeStep: Sendable, Equatable {
    /// An HTML error page, never a redirect (the redirect target is unknown or untrusted).
    /// `code` names the failure for the page (`AuthorizeDecision.errorPage`); `logReason` is for operators only.
    case errorPage(status: Int, code: String, logReason: String)
    /// The error goes back to the validated redirect URI.
    case errorRedirect(RedirectTarget, OAuthError)
    /// The login form, for a new login transaction.
    case showLogin(LoginScreen, reason: LoginReason)
    /// Single sign-on: a live session satisfied the request; the code goes back at once.
    case issued(RedirectTarget, code: String)
    /// `connection=NAME`: straight to the provider, with the new transaction's cookie and the
    /// sealed upstream state's (`UpstreamStateSeal`), both for `maxAge` seconds.
    case upstream(url: String, transactionCookie: String, stateCookie: String, maxAge: Int)
}

/// What `POST /login` does (`SignInFlow.submit`).
public enum LoginStep: Sendable, Equatable {
    /// No such transaction (expired, completed, or the cookie and form disagree): a restart page (G14).
    case expired
    /// The CSRF token is not this transaction's: 403, no session (G01).
    case forbidden
    /// The form names no action any authenticator answers: 400.
    case unreadable
    /// The form again, or another of its views: 401 with an error, 200 without.
    case showForm(LoginScreen)
    /// 429 with `Retry-After` seconds.
    case throttled(retryAfter: Int)
    /// The user cancelled: `access_denied` to the redirect URI; the transaction is gone.
    case cancelled(RedirectTarget, OAuthError)
    /// Signed in: a fresh session cookie, and 303 to the internal continuation — never to a URL
    /// the user supplied (G11, G12).
    case signedIn(resumeURL: String, sessionCookie: String, sessionMaxAge: Int)
    /// Continue at an upstream provider, with the sealed upstream state's cookie for `maxAge` seconds.
    case upstream(url: String, stateCookie: String, maxAge: Int)
}

/// What `{issuer}login/callback` does with a provider's answer (`SignInFlow.upstreamCallback`).
public enum UpstreamCallbackStep: Sendable, Equatable {
    /// No pending upstream sign-in in this browser (no cookie, expired, or not ours): a restart page.
    case expired
    /// The answer was refused (400: not this browser's, malformed) or the provider failed (502: a
    /// token refused, unreachable): an error page; `reason` is for operators.
    case failed(status: Int, reason: String)
    /// The user is blocked: an error page saying so.
    case blocked
    /// The provider says the user declined: `access_denied` to the application's redirect URI.
    case cancelled(RedirectTarget, OAuthError)
    /// Signed in, as from the login form.
    case signedIn(resumeURL: String, sessionCookie: String, sessionMaxAge: Int)
}

/// What `GET /authorize/resume` does (`SignInFlow.resume`).
public enum ResumeStep: Sendable, Equatable {
    /// The transaction is gone or has no live session: a restart page.
    case expired
    /// The code for the stored request goes back to its redirect URI; the transaction cookie is dropped.
    case issued(RedirectTarget, code: String)
}
