import Crypto
import FoundationEssentials
import Model

/// The browser sign-in, decided here and rendered by the web layer (`Server/SignIn`). Where a login
/// is decided:
///
///     authorize ─┬─ error page │ error redirect             (Authorizer's checks)
///                ├─ code at once                            (a live SSO session satisfies the request)
///                └─ login form, its transaction sealed in a cookie (nothing stored)
///     submit ────┬─ expired │ CSRF refused │ cancelled
///                ├─ an authenticator's answer: form again │ throttled │ upstream (SignInFlow+Upstream)
///                └─ authenticated → ONE commit (login count, rehash, throttle reset, session, and
///                   the transaction stored with it) → continue to resume
///     resume ────┬─ expired
///                └─ the code, to the validated redirect URI
///
/// Time (`clock`) and randomness (`random`) are parameters; outcomes worth an audit event or a
/// metric are reported in the `RequestContext`, which the web layer records.
public struct SignInFlow: Sendable {
    /// The stores the flow reads and writes.
    public struct Stores: Sendable {
        public var clients: any ClientStore
        public var users: any UserStore
        public var sessions: any SessionStore
        public var transactions: any LoginTransactionStore
        public var codes: any AuthorizationCodeStore
        public var signIns: any SignInStore

        public init(clients: any ClientStore, users: any UserStore, sessions: any SessionStore, transactions: any LoginTransactionStore,
                    codes: any AuthorizationCodeStore, signIns: any SignInStore) {
            self.clients = clients
            self.users = users
            self.sessions = sessions
            self.transactions = transactions
            self.codes = codes
            self.signIns = signIns
        }
    }

    public let issuer: String
    public let authorizer: Authorizer
    public let stores: Stores
    /// By the form `action` each answers.
    public let authenticators: [String: any Authenticator]
    public let clock: any Clock
    public let random: any RandomSource
    /// Seals pending transactions into their cookie.
    public let seal: TransactionSeal
    /// How long a user has to complete the login form.
    public var transactionLifetime: TimeInterval = 15 * 60
    /// How long a browser session lives after its login.
    public var sessionLifetime: TimeInterval
    /// A device label from the SDK telemetry (`auth0Client`), preferred over the context's.
    public var deviceLabel: @Sendable (String?) -> String? = { _ in nil }
    /// Signup, reset and passwordless (nil: only the password form).
    public var selfService: SelfService?
    /// Sign-in through upstream connections (nil: none), and the seal of its pending state.
    public var upstream: UpstreamAuthenticator?
    public var upstreamSeal: UpstreamStateSeal?
    /// The database connection's name: `connection=` naming it (or nothing) means the password form.
    public var databaseConnection = "Username-Password-Authentication"

    public init(issuer: String, authorizer: Authorizer, stores: Stores, authenticators: [any Authenticator], clock: any Clock,
                random: any RandomSource = SystemRandom(), seal: TransactionSeal, sessionLifetime: TimeInterval) {
        self.issuer = issuer
        self.authorizer = authorizer
        self.stores = stores
        var byAction: [String: any Authenticator] = [:]
        for authenticator in authenticators {
            for action in authenticator.actions { byAction[action] = authenticator }
        }
        self.authenticators = byAction
        self.clock = clock
        self.random = random
        self.seal = seal
        self.sessionLifetime = sessionLifetime
    }

    /// The path of the continuation a successful login goes to.
    public static let resumePath = "authorize/resume"

    // MARK: - authorize

    /// `/authorize` with its raw parameters (duplicates kept) and the session cookie's value, if any.
    public func authorize(_ pairs: [(String, String)], sessionCookie: String?,
                          context: inout RequestContext) throws(OAuthError) -> AuthorizeStep {
        let session = try currentSession(cookie: sessionCookie)
        let user = try session.flatMap { session throws(OAuthError) in
            try storage { () throws(StorageError) in try stores.users.find(userID: session.userID) }
        }
        let (decision, client) = authorizer.evaluate(pairs, session: session, user: user)
        switch decision {
        case .errorPage(let status, let code, let logReason):
            let clientID = pairs.first { $0.0 == "client_id" }?.1
            context.record(.authorizeRefused, clientID: clientID, details: ["reason": logReason])
            return .errorPage(status: status, code: code, logReason: logReason)
        case .errorRedirect(let target, let error):
            return .errorRedirect(target, error)
        case .login(let request, let reason):
            guard let client else { throw OAuthError(.serverError, "internal error", detail: "login decided without a client") }
            guard let (screen, transaction) = startTransaction(request, client: client, context: context) else {
                return .errorRedirect(request.target(issuer: issuer),
                                      OAuthError(.invalidRequest, "the authorization request is too long", detail: "sealed transaction over the cookie limit"))
            }
            if let name = request.connection, name != databaseConnection {
                return straightUpstream(name, screen: screen, transaction: transaction, request: request, client: client, context: &context)
            }
            return .showLogin(screen, reason: reason)
        case .issueCode(let request, let live):
            guard let user, let client else {
                throw OAuthError(.serverError, "internal error", detail: "SSO decided without a user or client")
            }
            let code = try CodeIssuer.issue(request: request, session: live, user: user, clock: clock, codes: stores.codes)
            context.record(.authorizeSSO, userID: user.userID, clientID: client.clientID)
            return .issued(request.target(issuer: issuer), code: code)
        }
    }

    /// `HEAD /authorize`: the request's own errors, decided without a session and without any
    /// write — no transaction, no code, no audit event (HEAD must not change state, RFC 9110 §9.2.1).
    /// nil when the request would go on to a login page or a code.
    public func inspect(_ pairs: [(String, String)]) -> AuthorizeStep? {
        switch authorizer.evaluate(pairs, session: nil, user: nil).decision {
        case .errorPage(let status, let code, let logReason): .errorPage(status: status, code: code, logReason: logReason)
        case .errorRedirect(let target, let error): .errorRedirect(target, error)
        case .login, .issueCode: nil
        }
    }

    /// The live session a cookie value names; oversized or unknown values name none.
    func currentSession(cookie: String?) throws(OAuthError) -> Session? {
        guard let cookie, !cookie.isEmpty, cookie.utf8.count <= 256 else { return nil }
        let found = try storage { () throws(StorageError) in try stores.sessions.find(cookieHash: SecretDigest.hash(cookie)) }
        guard let found, found.isLive(at: clock.now) else { return nil }
        return found
    }

    /// Seals the validated request into the transaction cookie; nothing is stored. nil when the
    /// request is too long to fit a cookie (no real client sends kilobytes of state and nonce).
    func startTransaction(_ request: AuthorizationRequest, client: Client,
                          context: RequestContext) -> (LoginScreen, LoginTransaction)? {
        let transactionID = random.token(bytes: 32)
        let csrf = CSRFToken.make(random: random)
        let now = clock.now
        let transaction = LoginTransaction(idHash: SecretDigest.hash(transactionID), clientID: client.clientID,
                                           parameters: request.parameters(), csrfHash: csrf.hash, createdAt: now,
                                           expiresAt: now.addingTimeInterval(transactionLifetime))
        guard let cookie = seal.seal(transaction, id: transactionID) else { return nil }
        var screen = LoginScreen(transactionID: transactionID, csrfToken: csrf.token, appName: client.name, email: request.loginHint,
                                 redirectURI: request.redirectURI, newTransactionMaxAge: Int(transactionLifetime), transactionCookie: cookie)
        screen.offers = offers(for: client)
        // Auth0 Universal Login's `screen_hint=signup` opens the signup form.
        if request.screenHint == "signup" && screen.offers.signup { screen.view = .signup }
        screen.locales = LocalePreference.ordered(uiLocales: request.uiLocales, acceptLanguage: context.acceptLanguage)
        screen.responseMode = request.responseMode
        screen.logoURL = client.logoURL
        screen.accentColor = client.accentColor
        return (screen, transaction)
    }

    /// What the login page offers this application besides the password.
    public func offers(for client: Client) -> LoginOffers {
        let mail = selfService?.deliversMail ?? false
        return LoginOffers(signup: selfService != nil && client.signupEnabled, passwordReset: mail,
                           passwordless: mail && client.grantTypes.contains(.passwordlessOTP),
                           connections: upstream?.offers(for: client) ?? [])
    }

    /// The parameter of a sealed transaction naming the user a further step is due for.
    static let pendingUserKey = "gatehouse.pending_user"

    /// The views a button switches to without submitting anything (`action=show_…`), when offered.
    static func navigation(_ action: String, offers: LoginOffers) -> LoginView? {
        switch action {
        case "show_login": .password
        case "show_signup" where offers.signup: .signup
        case "show_forgot" where offers.passwordReset: .forgotPassword
        case "show_passwordless" where offers.passwordless: .passwordlessEmail
        default: nil
        }
    }

    // MARK: - submit

    /// `POST /login` with the form's fields (first value of each) and the transaction cookie's value.
    public func submit(_ form: [String: String], transactionCookie: String?,
                       context: inout RequestContext) throws(OAuthError) -> LoginStep {
        guard let (transactionID, transaction) = findTransaction(id: form["tx"], cookie: transactionCookie) else { return .expired }
        // The CSRF token is bound to this transaction (negative-tests G01).
        guard CSRFToken.matches(form["csrf_token"], hash: transaction.csrfHash) else { return .forbidden }
        guard let request = AuthorizationRequest(parameters: transaction.parameters),
              let client = try storage({ () throws(StorageError) in try stores.clients.find(clientID: transaction.clientID) }) else {
            return .expired
        }
        let action = form["action"] ?? "login"
        if action == "cancel" {
            context.record(.loginCancelled, clientID: client.clientID)
            return .cancelled(request.target(issuer: issuer), OAuthError(.accessDenied, "The user cancelled the sign-in."))
        }
        let offers = offers(for: client)
        let locales = LocalePreference.ordered(uiLocales: request.uiLocales, acceptLanguage: context.acceptLanguage)
        func screen(_ view: LoginView, email: String? = nil, error: String? = nil) -> LoginScreen {
            var screen = LoginScreen(transactionID: transactionID, csrfToken: form["csrf_token"] ?? "", appName: client.name,
                                     email: email, errorMessage: error, redirectURI: request.redirectURI)
            screen.view = view
            screen.offers = offers
            screen.locales = locales
            screen.responseMode = request.responseMode
            screen.logoURL = client.logoURL
            screen.accentColor = client.accentColor
            return screen
        }
        if let view = Self.navigation(action, offers: offers) {
            return .showForm(screen(view, email: form["email"].flatMap { $0.isEmpty ? nil : String($0.prefix(254)) }))
        }
        let upstreamButton = action.hasPrefix(UpstreamAuthenticator.actionPrefix) ? upstream : nil
        guard let authenticator = authenticators[action] ?? upstreamButton else { return .unreadable }
        let submission = LoginSubmission(action: action, fields: form, client: client, request: request,
                                         pendingUserID: transaction.parameters[Self.pendingUserKey], locales: locales)
        switch try authenticator.authenticate(submission, context: &context) {
        case .authenticated(let user, let rehashed, let throttleKeys):
            guard let signedIn = try commitLogin(user, rehashed: rehashed, throttleKeys: throttleKeys, transactionID: transactionID,
                                                 transaction: transaction, request: request, client: client, context: &context) else {
                return .expired  // This transaction already signed someone in (a second post of the form).
            }
            return .signedIn(resumeURL: signedIn.resumeURL, sessionCookie: signedIn.cookie, sessionMaxAge: Int(sessionLifetime))
        case .retry(let message, let email):
            var shown = screen(.password, email: email, error: message)
            shown.errorField = "password"
            return .showForm(shown)
        case .step(let view, let notice, let error, let errorField, let email, let pendingUserID):
            var shown = screen(view, email: email, error: error)
            shown.notice = notice
            shown.errorField = errorField
            if let pendingUserID, transaction.parameters[Self.pendingUserKey] != pendingUserID {
                // Reseal the transaction with the proved user, for the next step only this browser can take.
                var pending = transaction
                pending.parameters[Self.pendingUserKey] = pendingUserID
                guard let cookie = seal.seal(pending, id: transactionID) else { return .expired }
                shown.transactionCookie = cookie
                shown.newTransactionMaxAge = max(1, Int(transaction.expiresAt.timeIntervalSince(clock.now)))
            }
            return .showForm(shown)
        case .throttled(let retryAfter):
            return .throttled(retryAfter: retryAfter)
        case .upstream(let redirect):
            guard let (cookie, maxAge) = sealUpstream(redirect, transactionID: transactionID, transaction: transaction) else {
                return .showForm(screen(.password, error: LoginMessages.upstreamFailed))
            }
            return .upstream(url: redirect.url, stateCookie: cookie, maxAge: maxAge)
        }
    }

    /// The one commit of a successful login: login count, rehash, throttle reset, the session, and
    /// the transaction stored with it (single use from here). nil when the transaction already
    /// signed someone in.
    func commitLogin(_ user: User, rehashed: String?, throttleKeys: [String], transactionID: String, transaction: LoginTransaction,
                     request: AuthorizationRequest, client: Client,
                     context: inout RequestContext) throws(OAuthError) -> (resumeURL: String, cookie: String)? {
        let (session, cookie) = newSession(for: user, request: request, context: context)
        do {
            try stores.signIns.completeLogin(LoginCompletion(
                userID: user.userID, time: session.authTime, rehashedPassword: rehashed, clearedThrottleKeys: throttleKeys,
                session: session, transaction: transaction))
        } catch .alreadyExists {
            return nil
        } catch {
            throw OAuthError(storage: error)
        }
        context.record(.loginSucceeded, userID: user.userID, clientID: client.clientID)
        return (issuer + Self.resumePath + "?tx=" + transactionID, cookie)
    }

    /// A fresh session and its cookie: a login never reuses a cookie (no session fixation, G11).
    func newSession(for user: User, request: AuthorizationRequest, context: RequestContext) -> (Session, cookie: String) {
        let now = clock.now
        let cookie = random.token(bytes: 32)
        let session = Session(sessionID: random.token(bytes: 16), cookieHash: SecretDigest.hash(cookie), userID: user.userID,
                              authTime: now, createdAt: now, lastSeenAt: now, expiresAt: now.addingTimeInterval(sessionLifetime),
                              deviceName: deviceLabel(request.auth0Client) ?? context.deviceName, ip: context.clientIP)
        return (session, cookie)
    }

    // MARK: - resume

    /// `GET /authorize/resume?tx=…` after a successful login: the code for the stored request.
    public func resume(transactionID: String?, transactionCookie: String?) throws(OAuthError) -> ResumeStep {
        guard let (_, sealed) = findTransaction(id: transactionID, cookie: transactionCookie) else { return .expired }
        let now = clock.now
        // Stored by the login that completed it; single use from here.
        guard let transaction = try storage({ () throws(StorageError) in try stores.transactions.find(idHash: sealed.idHash, at: now) }),
              let sessionID = transaction.sessionID,
              let request = AuthorizationRequest(parameters: transaction.parameters) else { return .expired }
        let found = try storage { () throws(StorageError) -> (Session, User)? in
            guard let session = try stores.sessions.find(sessionID: sessionID), session.isLive(at: now),
                  let user = try stores.users.find(userID: session.userID),
                  try stores.transactions.consume(idHash: transaction.idHash) else { return nil }
            return (session, user)
        }
        guard let (session, user) = found else { return .expired }
        let code = try CodeIssuer.issue(request: request, session: session, user: user, clock: clock, codes: stores.codes)
        return .issued(request.target(issuer: issuer), code: code)
    }

    /// The login transaction sealed in the browser's cookie, when the form or URL names the same id
    /// and it has not expired: the two must agree, so a transaction id alone (e.g. from a leaked URL)
    /// is useless, and so is a cookie without the page it came with.
    func findTransaction(id: String?, cookie: String?) -> (String, LoginTransaction)? {
        guard let cookie, let id, !cookie.isEmpty, let (sealedID, transaction) = seal.open(cookie),
              ConstantTime.equals(Array(sealedID.utf8), Array(id.utf8)), clock.now < transaction.expiresAt else { return nil }
        return (id, transaction)
    }
}
