import FoundationEssentials
import JOSE
import Model

/// What a logout request should do; the web layer renders it.
public enum LogoutDecision: Sendable, Equatable {
    /// End the browser's session (if any), clear its cookie, then continue.
    case end(LogoutContinuation)
    /// Ask the user first (RP-Initiated Logout §2: no trustworthy `id_token_hint`). The page posts
    /// `fields` back with a CSRF token bound to the browser; only that POST ends the session.
    case confirm(appName: String?, fields: [LogoutField])
    /// Refuse without touching the session: a page (400), never a redirect.
    /// `code` names the refusal for the page (`invalid_logout_request`, `logout_url_not_allowed`);
    /// `logReason` is the precise reason, for operators.
    case refuse(code: String, logReason: String)
}

/// Where to go once the session has ended.
public enum LogoutContinuation: Sendable, Equatable {
    /// 302 to exactly this URL.
    case redirect(String)
    /// The "signed out" page.
    case signedOutPage(appName: String?)
}

/// A parameter carried through the confirmation form.
public struct LogoutField: Sendable, Equatable {
    public let name: String
    public let value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// The logout rules for Auth0's `/v2/logout` and OIDC RP-Initiated Logout 1.0's `/oidc/logout`.
public struct LogoutPolicy: Sendable {
    public let issuer: String
    public let clients: any ClientStore
    /// Verification keys for `id_token_hint` (our published keys).
    public let hintKeys: Authorizer.KeyLookup

    public init(issuer: String, clients: any ClientStore, hintKeys: @escaping Authorizer.KeyLookup) {
        self.issuer = issuer
        self.clients = clients
        self.hintKeys = hintKeys
    }

    static let notAllowed = "logout_url_not_allowed"
    static let invalid = "invalid_logout_request"

    // MARK: - Auth0 /v2/logout

    /// `client_id`, `returnTo`, a bare `federated` (ignored). An immediate redirect, no interstitial:
    ///
    /// - `client_id` + `returnTo` → `returnTo` exactly as given when it matches the app's Allowed
    ///   Logout URLs under the logout rules (query and fragment ignored, scheme and host
    ///   case-insensitive); otherwise refused.
    /// - `client_id` only → the app's first logout URL, or the signed-out page.
    /// - `returnTo` without `client_id` → refused (Gatehouse has no tenant-level list).
    /// - neither → the signed-out page.
    public func auth0Logout(_ pairs: [(String, String)]) -> LogoutDecision {
        let parameters = Parameters(pairs)
        if let name = parameters.firstRepeated(among: ["client_id", "returnTo"]) {
            return .refuse(code: Self.invalid, logReason: "\(name) repeated")
        }
        let returnTo = parameters["returnTo"]
        // Checked before anything else, so a bad URL never ends a session (the matching rules ignore
        // the query and fragment, where such bytes would otherwise hide).
        if let returnTo, Self.hasControlCharacters(returnTo) {
            return .refuse(code: Self.invalid, logReason: "returnTo contains control characters")
        }
        guard let clientID = parameters["client_id"], !clientID.isEmpty else {
            if let returnTo, !returnTo.isEmpty {
                return .refuse(code: Self.notAllowed, logReason: "returnTo \(returnTo.debugDescription) without client_id")
            }
            return .end(.signedOutPage(appName: nil))
        }
        let client: Client
        switch findClient(clientID) {
        case .success(let found): client = found
        case .failure(let refusal): return refusal.decision
        }
        guard let returnTo, !returnTo.isEmpty else {
            return .end(client.logoutURLs.first.map(LogoutContinuation.redirect) ?? .signedOutPage(appName: client.name))
        }
        switch RedirectURIPolicy.match(returnTo, allowed: client.logoutURLs, kind: .logout, isNative: client.type == .native) {
        case .allowed:
            return .end(.redirect(returnTo))
        case .refused(let reason, _):
            return .refuse(code: Self.notAllowed, logReason: "returnTo \(returnTo.debugDescription) refused for \(client.clientID): \(reason)")
        }
    }

    // MARK: - OIDC RP-Initiated Logout 1.0

    /// `id_token_hint`, `client_id`, `post_logout_redirect_uri`, `state`, `logout_hint`, `ui_locales`.
    ///
    /// - A hint must verify with our keys, carry our `iss`, and name the client in `aud`
    ///   (`client_id`, when sent, must be among them); otherwise refused — never redirected (F08).
    /// - `post_logout_redirect_uri` must match one of the client's Allowed Logout URLs exactly,
    ///   query included (F07); `state` is appended to it.
    /// - Without a valid hint for the signed-in user, a browser with a session, or a request that
    ///   wants a redirect, must confirm with a POST first (F09, F12); `confirmed` is true only for
    ///   that POST with a valid CSRF token. No session and nothing to redirect to → signed-out page (F10).
    ///
    /// - Parameter sessionUserID: the user of the browser's live session, if any.
    public func rpInitiatedLogout(_ pairs: [(String, String)], sessionUserID: String?, confirmed: Bool) -> LogoutDecision {
        let parameters = Parameters(pairs)
        let singles: Set<String> = ["id_token_hint", "client_id", "post_logout_redirect_uri", "state", "logout_hint", "ui_locales"]
        if let name = parameters.firstRepeated(among: singles) {
            return .refuse(code: Self.invalid, logReason: "\(name) repeated")
        }
        var client: Client?
        if let clientID = parameters["client_id"], !clientID.isEmpty {
            switch findClient(clientID) {
            case .success(let found): client = found
            case .failure(let refusal): return refusal.decision
            }
        }
        var hintSubject: String?
        if let hint = parameters["id_token_hint"], !hint.isEmpty {
            switch verifyHint(hint, client: client) {
            case .success(let (subject, hintClient)):
                hintSubject = subject
                client = hintClient
            case .failure(let refusal):
                return refusal.decision
            }
        }
        var continuation = LogoutContinuation.signedOutPage(appName: client?.name)
        if let uri = parameters["post_logout_redirect_uri"], Self.hasControlCharacters(uri) {
            return .refuse(code: Self.invalid, logReason: "post_logout_redirect_uri contains control characters")
        }
        if let uri = parameters["post_logout_redirect_uri"], !uri.isEmpty {
            guard let client else {
                return .refuse(code: Self.invalid, logReason: "post_logout_redirect_uri without client_id or id_token_hint")
            }
            switch RedirectURIPolicy.match(uri, allowed: client.logoutURLs, kind: .callback, isNative: client.type == .native) {
            case .allowed:
                let target = RedirectTarget(redirectURI: uri, responseMode: .query, state: nil, issuer: issuer)
                let state = parameters["state"].map { [("state", $0)] } ?? []
                continuation = .redirect(AuthorizationResponse.redirectURL(for: target, parameters: state))
            case .refused(let reason, _):
                return .refuse(code: Self.notAllowed,
                               logReason: "post_logout_redirect_uri \(uri.debugDescription) refused for \(client.clientID): \(reason)")
            }
        }
        let trusted = confirmed || (hintSubject != nil && (sessionUserID == nil || hintSubject == sessionUserID))
        if trusted { return .end(continuation) }
        if sessionUserID == nil, case .signedOutPage = continuation { return .end(continuation) }
        var fields: [LogoutField] = []
        for name in ["id_token_hint", "client_id", "post_logout_redirect_uri", "state", "logout_hint", "ui_locales"] {
            if let value = parameters[name] { fields.append(LogoutField(name, value)) }
        }
        if parameters["client_id"] == nil, let client { fields.append(LogoutField("client_id", client.clientID)) }
        return .confirm(appName: client?.name, fields: fields)
    }

    /// Verifies the hint (expiry not checked: it may be an old ID token) and returns its subject and client.
    func verifyHint(_ hint: String, client: Client?) -> Result<(String, Client), Refusal> {
        let claims: [String: JSONValue]
        do {
            claims = try JWS.verify(hint, keys: hintKeys).claims()
        } catch {
            return .failure(Refusal(Self.invalid, "id_token_hint not verified: \(error)"))
        }
        guard claims["iss"]?.stringValue == issuer, let subject = claims["sub"]?.stringValue else {
            return .failure(Refusal(Self.invalid, "id_token_hint from another issuer or without sub"))
        }
        let audience = TokenInspection.audience(claims)
        if let client {
            guard audience.contains(where: { TokenInspection.same($0, client.clientID) }) else {
                return .failure(Refusal(Self.invalid, "id_token_hint not issued to \(client.clientID)"))
            }
            return .success((subject, client))
        }
        guard let clientID = claims["azp"]?.stringValue ?? (audience.count == 1 ? audience[0] : nil) else {
            return .failure(Refusal(Self.invalid, "id_token_hint names no single client"))
        }
        switch findClient(clientID) {
        case .success(let found): return .success((subject, found))
        case .failure(let refusal): return .failure(refusal)
        }
    }

    func findClient(_ clientID: String) -> Result<Client, Refusal> {
        do {
            guard let client = try clients.find(clientID: clientID), TokenInspection.same(client.clientID, clientID) else {
                return .failure(Refusal(Self.invalid, "unknown client_id \(clientID.debugDescription)"))
            }
            return .success(client)
        } catch {
            return .failure(Refusal("The service is temporarily unavailable. You are still signed in.", "client lookup: \(error)"))
        }
    }

    struct Refusal: Error {
        let decision: LogoutDecision
        init(_ message: String, _ log: String) { decision = .refuse(code: message, logReason: log) }
    }
}

extension LogoutPolicy {
    /// CR, LF, NUL or any other C0 control or DEL: never part of a URL we redirect to (RFC 3986 §2).
    static func hasControlCharacters(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }
}
