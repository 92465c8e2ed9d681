import FoundationEssentials
import HTTP
import KeyManagement
import Logging
import Model
import OIDC
import Settings
import Storage

/// The one composition root of request handling: the only place that names the SQLite stores. It
/// builds the protocol core's pieces over them (`SignInFlow`, `TokenEndpoint`, revocation,
/// introspection, logout policy) and the `Services` every adapter shares; `Routes` mounts them.
struct Composition: Sendable {
    let services: Services
    let keyRing: KeyRing
    let flow: SignInFlow
    let tokens: TokenEndpoint
    let revoker: TokenRevoker
    let introspector: TokenIntrospector
    let logoutPolicy: LogoutPolicy
    let sessions: SessionManager
    // What the userinfo and logout adapters read besides the core.
    let grants: any GrantStore
    let users: any UserStore
    let grantHolders: any GrantHolderReader
    let lifecycle: any LifecycleLookup
    let opaqueTokens: OpaqueAccessTokens
    /// Live browser sessions, for the `gatehouse_sessions_active` gauge.
    let liveSessionCount: @Sendable () -> Int
    /// The longest window a throttle row is still read in; maintenance purges rows past it.
    let throttleWindow: TimeInterval

    init(settings: Settings, store: Store, keyRing: KeyRing, logger: Logger, metrics: GatehouseMetrics, clock: any Clock = SystemClock()) {
        let issuer = settings.issuer.url
        let clients = SQLiteClientStore(store: store)
        let users = SQLiteUserStore(store: store)
        let codes = SQLiteAuthorizationCodeStore(store: store)
        let sessionStore = SQLiteSessionStore(store: store)
        let grants = SQLiteGrantStore(store: store)
        let apis = SQLiteAPIStore(store: store)
        let lifecycle = SQLiteLifecycleLookup(store: store)
        let cookies = CookieSpec(issuer: settings.issuer)
        let keys: Authorizer.KeyLookup = { keyRing.current.verificationKey(kid: $0) }
        // Derived from the key-encryption key, so every node sharing it opens every node's tokens.
        let opaque = OpaqueAccessTokens(key: keyRing.derivedKey(purpose: "gatehouse opaque access token key v1"))
        opaqueTokens = opaque

        services = Services(settings: settings, clock: clock, logger: logger, auditRecorder: AuditRecorder(store: AuditStore(store: store), logger: logger),
                            metrics: metrics, cookies: cookies, clients: clients)
        self.keyRing = keyRing
        self.grants = grants
        self.users = users
        self.lifecycle = lifecycle
        grantHolders = SQLiteGrantHolderReader(store: store)
        sessions = SessionManager(sessions: sessionStore, cookies: cookies, clock: clock)
        liveSessionCount = { (try? sessionStore.liveCount(at: Date())) ?? 0 }

        let signIns = SQLiteSignInStore(store: store)
        var credentials = CredentialCheck(users: users, throttle: LoginThrottle(store: SQLiteLoginThrottleStore(store: store), clock: clock,
                                                                                policy: Self.throttlePolicy(settings)))
        // Every checked attempt takes as long as the unknown-email path (negative-tests G07).
        credentials.measureFloor()
        throttleWindow = max(credentials.throttle.policy.window, credentials.throttle.policy.addressWindow)
        credentials.pause = { OSThread.sleep(for: $0) }
        let authorizer = Authorizer(issuer: issuer, clients: clients, clock: clock, hintKeys: keys, apis: apis)
        var flow = SignInFlow(issuer: issuer, authorizer: authorizer,
                              stores: .init(clients: clients, users: users, sessions: sessionStore,
                                            transactions: SQLiteLoginTransactionStore(store: store), codes: codes, signIns: signIns),
                              authenticators: [PasswordAuthenticator(credentials: credentials)], clock: clock,
                              seal: TransactionSeal(key: keyRing.derivedKey(purpose: "gatehouse login transaction seal v1")),
                              sessionLifetime: TimeInterval(settings.sessionLifetime.components.seconds))
        flow.deviceLabel = { ClientInfo.label($0) }
        self.flow = flow

        let refreshTokens = RefreshTokens(store: SQLiteRefreshTokenStore(store: store),
                                          successorKey: keyRing.derivedKey(purpose: "gatehouse refresh-token successor key v1"),
                                          sessions: sessionStore, familyReader: SQLiteRefreshTokenFamilyReader(store: store))
        tokens = TokenEndpoint(issuer: issuer, clients: clients, codes: codes, grants: grants, users: users, clock: clock,
                               minter: TokenMinter(issuer: issuer, signer: KeyRingSigner(keyRing: keyRing), opaqueTokens: opaque, clock: clock),
                               refreshTokens: refreshTokens, apis: apis,
                               passwordGrants: PasswordGrantPolicy(credentials: credentials, signIns: signIns, connection: settings.connectionName))
        revoker = TokenRevoker(issuer: issuer, clients: clients, grants: grants, lookup: lifecycle, keys: keys, opaqueTokens: opaque, clock: clock)
        introspector = TokenIntrospector(issuer: issuer, clients: clients, grants: grants, users: users, apis: apis, lookup: lifecycle,
                                         keys: keys, opaqueTokens: opaque, clock: clock)
        logoutPolicy = LogoutPolicy(issuer: issuer, clients: clients, hintKeys: keys)
    }

    static func throttlePolicy(_ settings: Settings) -> LoginThrottle.Policy {
        var policy = LoginThrottle.Policy()
        policy.maxFailures = settings.loginMaxFailures
        policy.lockDuration = TimeInterval(settings.loginLockDuration.components.seconds)
        policy.maxFailuresPerAddress = settings.loginMaxFailuresPerAddress
        policy.ipv6PrefixLength = settings.loginIPv6Prefix
        policy.accountFailures = settings.loginAccountFailures
        policy.accountMaxDelay = TimeInterval(settings.loginAccountMaxDelay.components.seconds)
        return policy
    }
}
