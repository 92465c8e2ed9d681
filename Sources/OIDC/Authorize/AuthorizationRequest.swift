/// A validated /authorize request: what the login form carries through a `LoginTransaction`
/// and what the issued code is bound to.
public struct AuthorizationRequest: Sendable, Equatable {
    public enum ResponseMode: String, Sendable, CaseIterable {
        case query
        case formPost = "form_post"
        /// Posted to the opener or parent window (`WebMessageOrigin`); auth0-spa-js's silent and popup sign-in.
        case webMessage = "web_message"
    }

    /// The `prompt` values Gatehouse understands (OIDC Core §3.1.2.1).
    public enum Prompt: String, Sendable, CaseIterable, Comparable {
        case none, login, consent
        case selectAccount = "select_account"

        public static func < (a: Prompt, b: Prompt) -> Bool { a.rawValue < b.rawValue }
    }

    /// The OpenID scopes Gatehouse understands without an API, in canonical order.
    public static let knownScopes = ScopeList.openIDScopes

    public var clientID: String
    /// Exactly as sent (the token request must repeat it byte for byte).
    public var redirectURI: String
    public var responseMode: ResponseMode
    public var state: String?
    public var nonce: String?
    /// Granted scopes: the known OpenID scopes in canonical order, then the audience's API scopes
    /// (`ScopeList.granted`, decided by the Authorizer).
    public var scopes: [String]
    /// nil only for confidential clients that sent no PKCE.
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    /// Seconds; nil when absent.
    public var maxAge: Int?
    public var prompt: Set<Prompt>
    public var loginHint: String?
    public var audience: String?
    // Auth0 extras, recorded for the web layer (ignored by the core).
    public var connection: String?
    public var organization: String?
    public var invitation: String?
    public var screenHint: String?
    public var uiLocales: String?
    public var auth0Client: String?

    public init(clientID: String, redirectURI: String, responseMode: ResponseMode = .query, state: String? = nil,
                nonce: String? = nil, scopes: [String] = ["openid"], codeChallenge: String? = nil,
                codeChallengeMethod: String? = nil, maxAge: Int? = nil, prompt: Set<Prompt> = [], loginHint: String? = nil,
                audience: String? = nil, connection: String? = nil, organization: String? = nil, invitation: String? = nil,
                screenHint: String? = nil, uiLocales: String? = nil, auth0Client: String? = nil) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.responseMode = responseMode
        self.state = state
        self.nonce = nonce
        self.scopes = Self.orderedScopes(scopes)
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.maxAge = maxAge
        self.prompt = prompt
        self.loginHint = loginHint
        self.audience = audience
        self.connection = connection
        self.organization = organization
        self.invitation = invitation
        self.screenHint = screenHint
        self.uiLocales = uiLocales
        self.auth0Client = auth0Client
    }

    /// The scope parameter as granted: known scopes, canonical order, space-separated.
    public var scope: String { scopes.joined(separator: " ") }

    /// Whether an ID token is issued (`openid` requested).
    public var isOpenID: Bool { scopes.contains("openid") }

    /// Known scopes of a space-separated `scope` value, in canonical order, without duplicates.
    public static func canonicalScopes(_ scope: String) -> [String] {
        let requested = Set(scope.split(separator: " ", omittingEmptySubsequences: true).map(String.init))
        return knownScopes.filter(requested.contains)
    }

    /// The known scopes in canonical order, then any others (API scopes) in their given order, once each.
    static func orderedScopes(_ scopes: [String]) -> [String] {
        let known = canonicalScopes(scopes.joined(separator: " "))
        var seen = Set(known)
        return known + scopes.filter { !$0.isEmpty && !$0.contains(" ") && seen.insert($0).inserted }
    }

    /// Where a response for this request goes.
    public func target(issuer: String) -> RedirectTarget {
        RedirectTarget(redirectURI: redirectURI, responseMode: responseMode, state: state, issuer: issuer, uiLocales: uiLocales)
    }

    /// Flat parameters for `LoginTransaction.parameters`; `init(parameters:)` reverses it.
    public func parameters() -> [String: String] {
        var result: [String: String] = [
            "client_id": clientID,
            "redirect_uri": redirectURI,
            "response_mode": responseMode.rawValue,
            "scope": scope,
        ]
        result["state"] = state
        result["nonce"] = nonce
        result["code_challenge"] = codeChallenge
        result["code_challenge_method"] = codeChallengeMethod
        result["max_age"] = maxAge.map(String.init)
        if !prompt.isEmpty { result["prompt"] = prompt.sorted().map(\.rawValue).joined(separator: " ") }
        result["login_hint"] = loginHint
        result["audience"] = audience
        result["connection"] = connection
        result["organization"] = organization
        result["invitation"] = invitation
        result["screen_hint"] = screenHint
        result["ui_locales"] = uiLocales
        result["auth0Client"] = auth0Client
        return result
    }

    /// Rebuilds a request stored with `parameters()`; nil when a required field is missing or malformed.
    public init?(parameters: [String: String]) {
        guard let clientID = parameters["client_id"], let redirectURI = parameters["redirect_uri"],
              let mode = ResponseMode(rawValue: parameters["response_mode"] ?? "query") else { return nil }
        var prompt: Set<Prompt> = []
        for value in (parameters["prompt"] ?? "").split(separator: " ") {
            guard let parsed = Prompt(rawValue: String(value)) else { return nil }
            prompt.insert(parsed)
        }
        var maxAge: Int?
        if let text = parameters["max_age"] {
            guard let parsed = Authorizer.parseMaxAge(text) else { return nil }
            maxAge = parsed
        }
        self.init(clientID: clientID, redirectURI: redirectURI, responseMode: mode, state: parameters["state"],
                  nonce: parameters["nonce"], scopes: ScopeList.tokens(parameters["scope"]),
                  codeChallenge: parameters["code_challenge"], codeChallengeMethod: parameters["code_challenge_method"],
                  maxAge: maxAge, prompt: prompt, loginHint: parameters["login_hint"], audience: parameters["audience"],
                  connection: parameters["connection"], organization: parameters["organization"],
                  invitation: parameters["invitation"], screenHint: parameters["screen_hint"],
                  uiLocales: parameters["ui_locales"], auth0Client: parameters["auth0Client"])
    }
}

/// Where an authorization response (success or error) is sent, and how.
public struct RedirectTarget: Sendable, Equatable {
    /// The registered redirect URI, exactly as the client sent it.
    public var redirectURI: String
    public var responseMode: AuthorizationRequest.ResponseMode
    /// Echoed exactly; omitted when absent.
    public var state: String?
    /// Added as `iss` (RFC 9207).
    public var issuer: String
    /// The request's `ui_locales`, for the page that carries a `form_post` or `web_message` answer.
    public var uiLocales: String?

    public init(redirectURI: String, responseMode: AuthorizationRequest.ResponseMode, state: String?, issuer: String,
                uiLocales: String? = nil) {
        self.redirectURI = redirectURI
        self.responseMode = responseMode
        self.state = state
        self.issuer = issuer
        self.uiLocales = uiLocales
    }

    /// For `web_message`: the origin the answer is posted to, the redirect URI's (the Authorizer
    /// checked it is an Allowed Web Origin before any answer could go there).
    public var messageOrigin: String? {
        responseMode == .webMessage ? WebOrigin.normalize(redirectURI, allowPath: true) : nil
    }

    /// `code`, `state` (when sent) and `iss`, in that order.
    public func successParameters(code: String) -> [(String, String)] {
        var result = [("code", code)]
        if let state { result.append(("state", state)) }
        result.append(("iss", issuer))
        return result
    }

    /// Only `error`, `error_description`, `state` (when sent) and `iss` (A15).
    public func errorParameters(_ error: OAuthError) -> [(String, String)] {
        var result = [("error", error.code.rawValue), ("error_description", error.description)]
        if let state { result.append(("state", state)) }
        result.append(("iss", issuer))
        return result
    }
}
