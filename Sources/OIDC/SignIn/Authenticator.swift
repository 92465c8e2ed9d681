import Model

/// One way for a user to prove who they are in the browser sign-in. The flow (`SignInFlow`) owns
/// the login transaction, the CSRF check, the one commit of a successful login and the resume; an
/// authenticator judges one submission of the login form and says what happens next.
///
/// The password form is `PasswordAuthenticator`. An upstream connection (Sign in with Apple or
/// Google) answers its button with `.redirect` and its callback with `.authenticated`; a
/// passwordless code or a second factor is an authenticator whose first answer shows its next
/// form. Each registers under the form `action` values it answers (`actions`).
public protocol Authenticator: Sendable {
    /// The login form's `action` values this authenticator answers.
    var actions: Set<String> { get }
    /// Judges one submission. Failures, locks and other outcomes are reported through
    /// `context.record`; the flow reports the success once it is committed.
    func authenticate(_ submission: LoginSubmission, context: inout RequestContext) throws(OAuthError) -> Authentication
}

/// A posted login form, with the authorization it belongs to.
public struct LoginSubmission: Sendable {
    /// The pressed button's `action` value.
    public var action: String
    /// Every posted field, first value of each name.
    public var fields: [String: String]
    public var client: Client
    public var request: AuthorizationRequest
    /// The user this transaction already proved (a password, or a signup) while a further step is
    /// due — confirming the address; sealed in the transaction cookie, so the form cannot name another.
    public var pendingUserID: String?
    /// The language for anything sent (an email), best first.
    public var locales: [String]

    public init(action: String, fields: [String: String], client: Client, request: AuthorizationRequest,
                pendingUserID: String? = nil, locales: [String] = []) {
        self.action = action
        self.fields = fields
        self.client = client
        self.request = request
        self.pendingUserID = pendingUserID
        self.locales = locales
    }
}

/// What an authenticator decided about one submission.
public enum Authentication: Sendable, Equatable {
    /// The user is who they claim. The flow commits the login with this hash update and throttle reset.
    case authenticated(User, rehashedPassword: String?, clearedThrottleKeys: [String])
    /// Show the form again, with a message for the user and what they typed (never a secret).
    case retry(message: String, email: String)
    /// Too many attempts from this address: 429 with `Retry-After` seconds.
    case throttled(retryAfter: Int)
    /// Continue at an upstream identity provider; the URL is the authenticator's, never the user's.
    /// The flow seals the redirect's secrets with the login transaction for the callback.
    case upstream(UpstreamRedirect)
    /// Show another form of the sign-in (a code to type, a new password), with a notice or an error
    /// next to a field, and the email the user typed. `pendingUserID` remembers a user already
    /// proved for the next step.
    case step(LoginView, notice: String? = nil, error: String? = nil, errorField: String? = nil, email: String? = nil,
              pendingUserID: String? = nil)
}
