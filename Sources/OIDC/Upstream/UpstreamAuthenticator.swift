import Crypto
import FoundationEssentials
import JOSE
import Model

/// Where a sign-in through a connection goes next: the provider's authorization URL, and the
/// secrets the callback checks its answer against (sealed by the flow with the login transaction).
public struct UpstreamRedirect: Sendable, Equatable {
    public var url: String
    public var state: String
    public var nonce: String
    public var codeVerifier: String
    public var connection: String

    public init(url: String, state: String, nonce: String, codeVerifier: String, connection: String) {
        self.url = url
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.connection = connection
    }
}

/// A connection's button on the login page (`LoginOffers.connections`).
public struct ConnectionOffer: Sendable, Equatable {
    public var name: String
    public var strategy: ConnectionStrategy

    public init(name: String, strategy: ConnectionStrategy) {
        self.name = name
        self.strategy = strategy
    }
}

/// Sign-in through an upstream connection (README "Upstream connections"), an authenticator of the
/// sign-in core: its button (`action=connection:NAME`) and `/authorize?connection=NAME` answer
/// with the provider's URL (`start`); the provider's answer at `{issuer}login/callback` is judged by
/// `finish` — code redeemed with its PKCE verifier, ID token verified, identity linked or created —
/// and the flow then commits the login as for a password.
public struct UpstreamAuthenticator: Authenticator {
    public static let actionPrefix = "connection:"
    public var actions: Set<String> { [Self.actionPrefix] }

    public struct Stores: Sendable {
        public var connections: any ConnectionStore
        public var identities: any IdentityStore
        public var users: any UserStore

        public init(connections: any ConnectionStore, identities: any IdentityStore, users: any UserStore) {
            self.connections = connections
            self.identities = identities
            self.users = users
        }
    }

    public let stores: Stores
    public let endpoints: UpstreamEndpointResolver
    public let verifier: UpstreamIDTokenVerifier
    public let redemption: UpstreamCodeRedemption
    /// `{issuer}login/callback`, the redirect URI registered upstream.
    public let callbackURL: String
    public let clock: any Clock
    public let random: any RandomSource
    /// Where Apple's refresh tokens are kept, sealed: account deletion revokes them at Apple (nil: not kept).
    public var upstreamTokens: (any UpstreamTokenStore)?

    public init(stores: Stores, endpoints: UpstreamEndpointResolver, verifier: UpstreamIDTokenVerifier, redemption: UpstreamCodeRedemption,
                callbackURL: String, clock: any Clock, random: any RandomSource = SystemRandom()) {
        self.stores = stores
        self.endpoints = endpoints
        self.verifier = verifier
        self.redemption = redemption
        self.callbackURL = callbackURL
        self.clock = clock
        self.random = random
    }

    /// The `{issuer}login/callback` path.
    public static let callbackPath = "login/callback"

    // MARK: - the way out

    public func authenticate(_ submission: LoginSubmission, context: inout RequestContext) throws(OAuthError) -> Authentication {
        let name = String(submission.action.dropFirst(Self.actionPrefix.count))
        do throws(UpstreamError) {
            return .upstream(try start(name, client: submission.client))
        } catch {
            context.record(.upstreamFailed, clientID: submission.client.clientID, details: ["connection": name, "reason": error.description])
            return .step(.password, error: Self.message(for: error))
        }
    }

    /// The provider's authorization URL for `name`, refused unless the application enables it.
    public func start(_ name: String, client: Client) throws(UpstreamError) -> UpstreamRedirect {
        let connection = try enabledConnection(name, client: client)
        let urls = try endpoints.endpoints(for: connection, now: clock.now)
        // Apple sends the name only in a form_post (README "Sign in with Apple and Google").
        let request = UpstreamAuthorizationRequest(connection: connection, authorizeURL: urls.authorizeURL, callback: callbackURL,
                                                   responseMode: connection.strategy == .apple ? "form_post" : nil, random: random)
        return UpstreamRedirect(url: request.url, state: request.state, nonce: request.nonce, codeVerifier: request.codeVerifier,
                                connection: connection.name)
    }

    func enabledConnection(_ name: String, client: Client) throws(UpstreamError) -> UpstreamConnection {
        let enabled = try storage { () throws(StorageError) in try stores.connections.enabled(clientID: client.clientID) }
        guard enabled.contains(name),
              let connection = try storage({ () throws(StorageError) in try stores.connections.find(name: name) }) else {
            throw .connection("the connection is not enabled for this application")
        }
        return connection
    }

    /// The application's connections, for its login page.
    public func offers(for client: Client) -> [ConnectionOffer] {
        // A page without its buttons beats no page when the read fails; the button's post reports it.
        ((try? stores.connections.enabledStrategies(clientID: client.clientID)) ?? []).map { ConnectionOffer(name: $0.name, strategy: $0.strategy) }
    }

    // MARK: - the way back

    /// Judges the provider's answer (query or form_post fields) against the sealed pending state.
    public func finish(_ fields: [String: String], pending: UpstreamPendingState, client: Client) throws(UpstreamError) -> User {
        // The state first (RFC 6749 §4.1.2.1: an error answer carries it too), so nobody else can end this sign-in.
        guard let state = fields["state"], ConstantTime.equals(Array(state.utf8), Array(pending.state.utf8)) else {
            throw .invalidCallback("state does not match this browser's sign-in")
        }
        if let error = fields["error"] { throw .declined(String(error.prefix(100))) }
        guard let code = fields["code"], !code.isEmpty, code.utf8.count <= 4096 else { throw .invalidCallback("no code") }
        let connection = try enabledConnection(pending.connection, client: client)
        let now = clock.now
        let urls = try endpoints.endpoints(for: connection, now: now)
        let tokens = try redemption.redeem(code, connection: connection, clientID: connection.clientID, tokenURL: urls.tokenURL,
                                           redirectURI: callbackURL, codeVerifier: pending.codeVerifier)
        var claims = try verifier.verify(tokens.idToken, expecting: .init(issuer: urls.issuer, jwksURL: urls.jwksURL,
                                                                          audiences: [connection.clientID], nonce: pending.nonce), now: now)
        try Self.checkHostedDomain(claims, connection: connection)
        if connection.strategy == .apple, let user = fields["user"] { AppleUserField.merge(user, into: &claims) }
        let user = try signIn(claims, connection: connection, now: now)
        try keep(tokens.refreshToken, of: claims, connection: connection, clientID: connection.clientID, now: now)
        return user
    }

    /// Keeps Apple's refresh token with the client id that redeemed it: revocation must name the same id
    /// (README "Account deletion"). Other providers' refresh tokens are not kept: Gatehouse never uses them.
    public func keep(_ refreshToken: String?, of claims: [String: JSONValue], connection: UpstreamConnection, clientID: String,
                     now: Date) throws(UpstreamError) {
        guard connection.strategy == .apple, let refreshToken, let subject = claims["sub"]?.stringValue, let upstreamTokens else { return }
        try storage { () throws(StorageError) in
            try upstreamTokens.setRefreshToken(UpstreamRefreshToken(token: refreshToken, clientID: clientID), connection: connection.name,
                                               subject: subject, at: now)
        }
    }

    /// Google's `hd` restriction: the token must name the connection's domain (absent: any account).
    static func checkHostedDomain(_ claims: [String: JSONValue], connection: UpstreamConnection) throws(UpstreamError) {
        guard let domain = connection.hostedDomain else { return }
        guard let hd = claims["hd"]?.stringValue, hd.lowercased() == domain.lowercased() else {
            throw .invalidIDToken("hd \(claims["hd"]?.stringValue ?? "missing") is not \(domain)")
        }
    }

    /// The user of verified claims: the identity's, a linked existing user, or a new one
    /// (`UpstreamLinking`); the identity's profile is the latest login's claims.
    public func signIn(_ claims: [String: JSONValue], connection: UpstreamConnection, now: Date) throws(UpstreamError) -> User {
        let subject = claims["sub"]?.stringValue ?? ""
        let profile = String(decoding: (try? JSONBody.encode(claims)) ?? Array("{}".utf8), as: UTF8.self)
        return try storage { () throws(StorageError) -> User in
            let linked = try stores.identities.find(connection: connection.name, subject: subject)
            var candidates: [User] = []
            if linked == nil, connection.linkByVerifiedEmail, let email = UpstreamLinking.email(claims) {
                candidates = try stores.identities.users(email: email.address)
            }
            switch UpstreamLinking.decide(connection: connection, claims: claims, linked: linked?.userID, candidates: candidates, now: now) {
            case .existing(let userID):
                try stores.identities.updateProfile(connection: connection.name, subject: subject, profile: profile, at: now)
                guard let user = try stores.users.find(userID: userID) else { throw StorageError.notFound("user \(userID)") }
                return user
            case .link(let userID):
                try stores.identities.link(Identity(connection: connection.name, subject: subject, userID: userID, profile: profile,
                                                    createdAt: now))
                guard let user = try stores.users.find(userID: userID) else { throw StorageError.notFound("user \(userID)") }
                return user
            case .create(let user):
                try stores.identities.create(user, with: Identity(connection: connection.name, subject: subject, userID: user.userID,
                                                                  profile: profile, createdAt: now))
                return user
            }
        }
    }

    /// The login page's text for a failure (operators read the reason in the log and audit).
    static func message(for error: UpstreamError) -> String {
        switch error {
        case .connection: LoginMessages.connectionUnavailable
        default: LoginMessages.upstreamFailed
        }
    }

    private func storage<T>(_ body: () throws(StorageError) -> T) throws(UpstreamError) -> T {
        do { return try body() } catch { throw .storage(error.description) }
    }
}

/// Apple's `user` form field, sent with the first authorization only: `{"name":{"firstName",
/// "lastName"},"email"}`. Its name fills the claims the ID token lacks; the email in the signed
/// token wins over the unsigned field.
enum AppleUserField {
    static func merge(_ text: String, into claims: inout [String: JSONValue]) {
        guard text.utf8.count <= 4096, case .object(let user)? = try? JSONValue(parsing: Array(text.utf8)),
              case .object(let name)? = user["name"] else { return }
        let given = name["firstName"]?.stringValue.map { String($0.prefix(100)) }
        let family = name["lastName"]?.stringValue.map { String($0.prefix(100)) }
        if claims["given_name"] == nil, let given { claims["given_name"] = .string(given) }
        if claims["family_name"] == nil, let family { claims["family_name"] = .string(family) }
        if claims["name"] == nil {
            let full = [given, family].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
            if !full.isEmpty { claims["name"] = .string(full) }
        }
    }
}
