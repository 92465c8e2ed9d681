import Crypto
import FoundationEssentials
import JOSE
import Model

/// Why the login form must be shown.
public enum LoginReason: String, Sendable, Equatable {
    /// No live SSO session (or its user is gone or blocked).
    case noSession = "no_session"
    /// `prompt=login` (OIDC Core §3.1.2.1).
    case promptLogin = "prompt_login"
    /// The session's `auth_time` is older than `max_age`.
    case maxAgeExceeded = "max_age_exceeded"
    /// `id_token_hint` names another user than the session's.
    case differentUser = "different_user"
}

/// What /authorize should do; the web layer renders it.
public enum AuthorizeDecision: Sendable, Equatable {
    /// Show an HTML error page; never redirect (the redirect target is unknown or untrusted).
    /// `code` names the failure for the page (worded in the user's language by the web layer and
    /// shown for support to quote); `logReason` is the precise reason, for operators only.
    case errorPage(status: Int, code: String, logReason: String)
    /// Redirect the error to the validated redirect URI.
    case errorRedirect(RedirectTarget, OAuthError)
    /// Show the login form; after authentication, issue the code for the request.
    case login(AuthorizationRequest, reason: LoginReason)
    /// SSO: the live session satisfies the request; issue a code at once.
    case issueCode(AuthorizationRequest, Session)
}

/// The /authorize rules (RFC 6749 §4.1.1, §3.1; OIDC Core §3.1.2; RFC 7636; RFC 9207),
/// each a small named check, run in order:
///
/// 1. `client_id` once, known → else error page.
/// 2. `redirect_uri` once, present, allowed → else error page. It is never defaulted, even for a
///    client with a single registered callback: OIDC Core §3.1.2.1 makes it REQUIRED and the
///    conformance suite checks the error page (A02).
/// 3. From here errors redirect (with `state`, when unambiguous, and `iss`): `response_mode`,
///    duplicated parameters, `state`, `request`/`request_uri`, `response_type`, grant type, PKCE,
///    `prompt`, `max_age`, `id_token_hint`, `audience` (`AudienceRule`; the granted scopes follow
///    from it, `ScopeList.granted`).
/// 4. Session policy: `prompt=none` → code or `login_required`; else login or SSO code.
///
/// A missing `state` is accepted (RFC 6749 makes it RECOMMENDED; the FAPI2 suite expects success
/// and no `state` in the response); a duplicated one is `invalid_request`.
public struct Authorizer: Sendable {
    /// Verification keys for `id_token_hint`, by `kid` (our published keys).
    public typealias KeyLookup = @Sendable (String) -> (PublicKey, JWS.Algorithm)?

    public let issuer: String
    public let clients: any ClientStore
    public let clock: any Clock
    public let hintKeys: KeyLookup
    /// Registered APIs, the audiences a user may ask for; nil → none is registered.
    public let apis: (any APIStore)?

    public init(issuer: String, clients: any ClientStore, clock: any Clock, hintKeys: @escaping KeyLookup, apis: (any APIStore)? = nil) {
        self.issuer = issuer
        self.clients = clients
        self.clock = clock
        self.hintKeys = hintKeys
        self.apis = apis
    }

    /// Parameters that must not repeat (RFC 6749 §3.1); unknown ones are ignored, repeated or not.
    static let singleValued: Set<String> = [
        "client_id", "redirect_uri", "response_type", "response_mode", "state", "scope", "nonce", "prompt", "max_age",
        "code_challenge", "code_challenge_method", "id_token_hint", "login_hint", "audience", "request", "request_uri",
        "connection", "organization", "invitation", "screen_hint",
    ]

    /// Decides an /authorize request from its raw parameter pairs (query or POST form, duplicates kept),
    /// the browser's SSO session if any, and its user.
    public func decide(_ pairs: [(String, String)], session: Session?, user: User?) -> AuthorizeDecision {
        evaluate(pairs, session: session, user: user).decision
    }

    /// `decide`, with the client it found (nil when the decision is an error page about the client).
    public func evaluate(_ pairs: [(String, String)], session: Session?, user: User?) -> (decision: AuthorizeDecision, client: Client?) {
        let parameters = Parameters(pairs)

        // 1. The client.
        let client: Client
        switch checkClient(parameters) {
        case .success(let found): client = found
        case .failure(let page): return (page.decision, nil)
        }
        // 2. The redirect URI.
        let redirectURI: String
        switch checkRedirectURI(parameters, client: client) {
        case .success(let uri): redirectURI = uri
        case .failure(let page): return (page.decision, client)
        }
        if case .failure(let page) = checkWebMessageOrigin(parameters, client: client, redirectURI: redirectURI) {
            return (page.decision, client)
        }
        return (redirectingChecks(parameters, client: client, redirectURI: redirectURI, session: session, user: user), client)
    }

    /// Step 3 and 4: every check whose error goes back to the validated redirect URI, then the session policy.
    func redirectingChecks(_ parameters: Parameters, client: Client, redirectURI: String, session: Session?, user: User?) -> AuthorizeDecision {
        // 3. Everything else redirects.
        var target = RedirectTarget(redirectURI: redirectURI, responseMode: .query, state: nil, issuer: issuer,
                                    uiLocales: parameters["ui_locales"])
        do throws(OAuthError) {
            // `state` first: RFC 6749 §4.1.2.1 wants it on every redirected error, a response_mode one included.
            target.state = try checkState(parameters)
            target.responseMode = try checkResponseMode(parameters)
            try checkDuplicates(parameters)
            try checkRequestObjects(parameters)
            try checkResponseType(parameters)
            try checkGrantType(client)
            let challenge = try PKCE.checkChallenge(parameters["code_challenge"], method: parameters["code_challenge_method"],
                                                    isPublicClient: client.type.isPublic)
            let prompt = try checkPrompt(parameters)
            let maxAge = try checkMaxAge(parameters)
            let hintSubject = try checkIDTokenHint(parameters, client: client)
            let api = try AudienceRule.resolve(parameters["audience"], apis: apis, issuer: issuer)
            let request = AuthorizationRequest(
                clientID: client.clientID, redirectURI: redirectURI, responseMode: target.responseMode, state: target.state,
                nonce: parameters["nonce"], scopes: ScopeList.granted(ScopeList.tokens(parameters["scope"]), api: api),
                codeChallenge: challenge, codeChallengeMethod: challenge == nil ? nil : PKCE.s256, maxAge: maxAge,
                prompt: prompt, loginHint: parameters["login_hint"], audience: parameters["audience"],
                connection: parameters["connection"], organization: parameters["organization"],
                invitation: parameters["invitation"], screenHint: parameters["screen_hint"],
                uiLocales: parameters["ui_locales"], auth0Client: parameters["auth0Client"])
            return try sessionDecision(request, session: session, user: user, hintSubject: hintSubject)
        } catch {
            return .errorRedirect(target, error)
        }
    }

    // MARK: - Checks that end on an error page

    func checkClient(_ parameters: Parameters) -> Result<Client, PageError> {
        let values = parameters.all("client_id")
        guard values.count <= 1 else {
            return .failure(PageError(400, "invalid_request", "duplicate client_id"))
        }
        guard let clientID = values.first, !clientID.isEmpty else {
            return .failure(PageError(400, "invalid_request", "missing client_id"))
        }
        let found: Client?
        do {
            found = try clients.find(clientID: clientID)
        } catch {
            if case .unavailable = error {
                return .failure(PageError(503, "temporarily_unavailable", "client lookup: \(error)"))
            }
            return .failure(PageError(500, "server_error", "client lookup: \(error)"))
        }
        // Byte comparison guards against a store that matches ids by canonical equivalence (A05).
        guard let client = found, Array(client.clientID.utf8) == Array(clientID.utf8) else {
            return .failure(PageError(400, "unknown_application", "unknown client_id \(clientID.debugDescription)"))
        }
        return .success(client)
    }

    func checkRedirectURI(_ parameters: Parameters, client: Client) -> Result<String, PageError> {
        let values = parameters.all("redirect_uri")
        guard values.count <= 1 else {
            return .failure(PageError(400, "invalid_request", "duplicate redirect_uri"))
        }
        guard let uri = values.first, !uri.isEmpty else {
            return .failure(PageError(400, "invalid_request", "missing redirect_uri"))
        }
        switch RedirectURIPolicy.match(uri, allowed: client.callbacks, kind: .callback, isNative: client.type == .native) {
        case .allowed:
            return .success(uri)
        case .refused(let reason, let nearest):
            var log = "redirect_uri \(uri.debugDescription) refused for \(client.clientID): \(reason)"
            if let nearest { log += "; nearest allowed callback: \(nearest)" }
            return .failure(PageError(400, "callback_not_allowed", log))
        }
    }

    /// `response_mode=web_message` answers by `postMessage` to the redirect URI's origin, so that origin
    /// must be an Allowed Web Origin before anything, an error included, is sent there (`WebMessageOrigin`).
    /// Other modes, and a repeated `response_mode` (redirected as `invalid_request` below), pass.
    func checkWebMessageOrigin(_ parameters: Parameters, client: Client, redirectURI: String) -> Result<Void, PageError> {
        let modes = parameters.all("response_mode")
        guard modes.count == 1, modes[0] == AuthorizationRequest.ResponseMode.webMessage.rawValue else { return .success(()) }
        switch WebMessageOrigin.decide(redirectURI: redirectURI, allowedWebOrigins: client.webOrigins) {
        case .success:
            return .success(())
        case .failure(.noOrigin):
            return .failure(PageError(400, "web_origin_not_allowed",
                                      "web_message for \(client.clientID): redirect_uri \(redirectURI.debugDescription) has no web origin"))
        case .failure(.notAllowed(let origin)):
            return .failure(PageError(400, "web_origin_not_allowed",
                                      "web_message for \(client.clientID): the redirect_uri's origin \(origin) is not an Allowed Web Origin"))
        }
    }

    // MARK: - Checks that redirect their error

    /// `query` (default), `form_post` or `web_message`.
    func checkResponseMode(_ parameters: Parameters) throws(OAuthError) -> AuthorizationRequest.ResponseMode {
        let values = parameters.all("response_mode")
        guard values.count <= 1 else { throw OAuthError(.invalidRequest, "response_mode is repeated") }
        guard let value = values.first else { return .query }
        guard let mode = AuthorizationRequest.ResponseMode(rawValue: value) else {
            throw OAuthError(.invalidRequest, "unsupported response_mode; use query, form_post or web_message", detail: "response_mode \(value)")
        }
        return mode
    }

    /// Echoed exactly when sent once; repeated is ambiguous, so neither copy is echoed.
    func checkState(_ parameters: Parameters) throws(OAuthError) -> String? {
        let values = parameters.all("state")
        guard values.count <= 1 else { throw OAuthError(.invalidRequest, "state is repeated") }
        return values.first
    }

    /// RFC 6749 §3.1: parameters must not be included more than once.
    func checkDuplicates(_ parameters: Parameters) throws(OAuthError) {
        if let name = parameters.firstRepeated(among: Self.singleValued) {
            throw OAuthError(.invalidRequest, "\(name) is repeated")
        }
    }

    /// OIDC Core §6: request objects are not supported, and must not be silently ignored.
    func checkRequestObjects(_ parameters: Parameters) throws(OAuthError) {
        if parameters["request"] != nil { throw OAuthError(.requestNotSupported, "request objects are not supported") }
        if parameters["request_uri"] != nil { throw OAuthError(.requestURINotSupported, "request_uri is not supported") }
    }

    /// Only the authorization code flow.
    func checkResponseType(_ parameters: Parameters) throws(OAuthError) {
        guard let value = parameters["response_type"], !value.isEmpty else {
            throw OAuthError(.invalidRequest, "response_type is required")
        }
        guard value == "code" else {
            throw OAuthError(.unsupportedResponseType, "only response_type=code is supported", detail: "response_type \(value)")
        }
    }

    func checkGrantType(_ client: Client) throws(OAuthError) {
        guard client.grantTypes.contains(.authorizationCode) else {
            throw OAuthError(.unauthorizedClient, "the application may not use the authorization code flow")
        }
    }

    /// `none` alone, or any of login/consent/select_account; unknown values are refused.
    func checkPrompt(_ parameters: Parameters) throws(OAuthError) -> Set<AuthorizationRequest.Prompt> {
        guard let value = parameters["prompt"] else { return [] }
        var result: Set<AuthorizationRequest.Prompt> = []
        for word in value.split(separator: " ", omittingEmptySubsequences: true) {
            guard let prompt = AuthorizationRequest.Prompt(rawValue: String(word)) else {
                throw OAuthError(.invalidRequest, "unsupported prompt value", detail: "prompt \(value)")
            }
            result.insert(prompt)
        }
        if result.contains(.none), result.count > 1 {
            throw OAuthError(.invalidRequest, "prompt=none cannot be combined with other values")
        }
        return result
    }

    func checkMaxAge(_ parameters: Parameters) throws(OAuthError) -> Int? {
        guard let value = parameters["max_age"] else { return nil }
        guard let maxAge = Self.parseMaxAge(value) else {
            throw OAuthError(.invalidRequest, "max_age must be a non-negative integer number of seconds")
        }
        return maxAge
    }

    /// ASCII digits only (no sign, space or exponent), at most 10 digits so arithmetic cannot overflow.
    static func parseMaxAge(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 10, bytes.allSatisfy(ASCII.isDigit) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// Verifies `id_token_hint` with our keys (alg decided by our key) and returns its `sub`.
    /// Expiry is not checked: a hint may be an old ID token (OIDC Core §3.1.2.1).
    func checkIDTokenHint(_ parameters: Parameters, client: Client) throws(OAuthError) -> String? {
        guard let hint = parameters["id_token_hint"] else { return nil }
        let claims: [String: JSONValue]
        do {
            claims = try JWS.verify(hint, keys: hintKeys).claims()
        } catch {
            throw OAuthError(.invalidRequest, "id_token_hint is not a valid ID token", detail: "\(error)")
        }
        guard claims["iss"]?.stringValue == issuer, let subject = claims["sub"]?.stringValue else {
            throw OAuthError(.invalidRequest, "id_token_hint was not issued here")
        }
        let audience: [String] = switch claims["aud"] {
        case .string(let value): [value]
        case .array(let values): values.compactMap(\.stringValue)
        default: []
        }
        guard audience.contains(client.clientID) else {
            throw OAuthError(.invalidRequest, "id_token_hint was issued to another application")
        }
        return subject
    }

    // MARK: - Session policy

    /// OIDC Core §3.1.2.1–§3.1.2.3: `prompt=none` never shows UI; otherwise a live session
    /// satisfies the request unless `prompt=login`, `max_age` or a hint for another user says otherwise.
    func sessionDecision(_ request: AuthorizationRequest, session: Session?, user: User?,
                         hintSubject: String?) throws(OAuthError) -> AuthorizeDecision {
        let now = clock.now
        let live = session.flatMap { session -> Session? in
            guard session.isLive(at: now), let user, user.userID == session.userID, !user.blocked else { return nil }
            return session
        }
        let tooOld = live.map { session in
            request.maxAge.map { now.timeIntervalSince(session.authTime) > Double($0) } ?? false
        } ?? false
        let otherUser = live.map { session in hintSubject.map { $0 != session.userID } ?? false } ?? false

        if request.prompt.contains(.none) {
            guard let live else { throw OAuthError(.loginRequired, "the user is not signed in") }
            if tooOld { throw OAuthError(.loginRequired, "the sign-in is older than max_age") }
            if otherUser { throw OAuthError(.loginRequired, "the signed-in user is not the one id_token_hint names") }
            return .issueCode(request, live)
        }
        guard let live else { return .login(request, reason: .noSession) }
        if request.prompt.contains(.login) { return .login(request, reason: .promptLogin) }
        if tooOld { return .login(request, reason: .maxAgeExceeded) }
        if otherUser { return .login(request, reason: .differentUser) }
        return .issueCode(request, live)
    }
}

/// An error page outcome, carried through `Result`.
struct PageError: Error {
    let decision: AuthorizeDecision
    init(_ status: Int, _ code: String, _ log: String) {
        decision = .errorPage(status: status, code: code, logReason: log)
    }
}

/// Raw request parameters, duplicates preserved.
struct Parameters {
    let pairs: [(String, String)]
    init(_ pairs: [(String, String)]) { self.pairs = pairs }

    /// Every value of `name`, in order (names compare byte for byte).
    func all(_ name: String) -> [String] {
        let key = Array(name.utf8)
        return pairs.filter { Array($0.0.utf8) == key }.map(\.1)
    }

    /// The first value of `name`.
    subscript(_ name: String) -> String? { all(name).first }

    /// The first name from `names` that occurs more than once.
    func firstRepeated(among names: Set<String>) -> String? {
        var seen: Set<[UInt8]> = []
        for (name, _) in pairs where names.contains(name) {
            if !seen.insert(Array(name.utf8)).inserted { return name }
        }
        return nil
    }
}
