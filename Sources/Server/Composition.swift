import FoundationEssentials
import HTTP
import KeyManagement
import Logging
import Mail
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
    /// Native-to-web session transfer at /authorize (README "Native to web").
    let transfer: SessionTransferRedeemer
    let tokens: TokenEndpoint
    let revoker: TokenRevoker
    let introspector: TokenIntrospector
    let logoutPolicy: LogoutPolicy
    let sessions: SessionManager
    /// Signup, reset, verification and passwordless codes (README "Accounts").
    let selfService: SelfService
    /// `GET|PATCH /api/v2/users/{id}` for the token's own user.
    let currentUser: CurrentUserAPI
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
    /// Where the account flows enqueue mail; nil when email delivery is not configured
    /// (`Settings.emailDelivery`), and then no flow may offer anything that needs mail.
    let mailQueue: (any MailQueue)?
    /// Drains `mailQueue`; `GatehouseServer` starts and stops it.
    let mailSender: MailSender?
    /// Apple's side of upstream sign-in: refresh tokens, client secrets, account deletion, revocation, notifications.
    let upstream: UpstreamAccountParts

    /// - Parameter mail: a queue for account messages instead of the configured outbox (tests).
    init(settings: Settings, store: any GatehouseStorage, keyRing: KeyRing, logger: Logger, metrics: GatehouseMetrics, clock: any Clock = SystemClock(),
         mail: (any MailQueue)? = nil) {
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

        var services = Services(settings: settings, clock: clock, logger: logger,
                                auditRecorder: AuditRecorder(store: AuditStore(store: store), logger: logger),
                                metrics: metrics, cookies: cookies, clients: clients)
        services.pageText = PageText(overrides: settings.localesDir)
        if let directory = settings.localesDir, (try? FileManager.default.contentsOfDirectory(atPath: directory)) == nil {
            logger.warning("locales_dir_unreadable", ["path": .string(directory)])
        }
        self.services = services
        self.keyRing = keyRing
        self.grants = grants
        self.users = users
        self.lifecycle = lifecycle
        grantHolders = SQLiteGrantHolderReader(store: store)
        sessions = SessionManager(sessions: sessionStore, cookies: cookies, clock: clock)
        // The gauge is a range of the live sessions' index: when that is slow, taken at most every 30 s.
        let liveSessions = CachedCount(maximumAge: .seconds(30)) { (try? sessionStore.liveCount(at: Date())) ?? 0 }
        liveSessionCount = { liveSessions.value() }

        let signIns = SQLiteSignInStore(store: store)
        var credentials = CredentialCheck(users: users, throttle: LoginThrottle(store: SQLiteLoginThrottleStore(store: store), clock: clock,
                                                                                policy: Self.throttlePolicy(settings)))
        // Every checked attempt takes as long as the unknown-email path (negative-tests G07).
        credentials.measureFloor()
        throttleWindow = max(credentials.throttle.policy.window, credentials.throttle.policy.addressWindow)
        credentials.pause = { OSThread.sleep(for: $0) }
        if let delivery = settings.emailDelivery, let from = try? MailSetup.sender(for: delivery) {
            let outbox = SQLiteMailOutbox(store: store, key: keyRing.derivedKey(purpose: Self.mailSealPurpose))
            let sender = MailSender(outbox: outbox, makeTransport: { try MailSetup.transport(for: delivery, cancellation: $0) },
                                    templates: MailSetup.templates(for: delivery), from: from,
                                    maxAge: TimeInterval(delivery.maxAge.components.seconds), logger: logger, metrics: metrics, clock: clock)
            metrics.setMailQueueDepth { (try? outbox.depth()) ?? 0 }
            mailSender = sender
            mailQueue = WakingMailQueue(outbox: outbox, sender: sender)
        } else {
            mailSender = nil
            mailQueue = nil
        }
        // A test's queue, else the daemon's outbox.
        let mail = mail ?? mailQueue
        let selfService = Self.selfService(settings: settings, store: store, users: users, keyRing: keyRing, mail: mail, clock: clock,
                                           logger: logger)
        self.selfService = selfService
        let authorizer = Authorizer(issuer: issuer, clients: clients, clock: clock, hintKeys: keys, apis: apis)
        var password = PasswordAuthenticator(credentials: credentials)
        password.selfService = selfService
        let authenticators: [any Authenticator] = [
            password, SignupAuthenticator(selfService: selfService), EmailVerificationAuthenticator(selfService: selfService, users: users),
            PasswordResetAuthenticator(selfService: selfService), PasswordlessAuthenticator(selfService: selfService),
        ]
        var flow = SignInFlow(issuer: issuer, authorizer: authorizer,
                              stores: .init(clients: clients, users: users, sessions: sessionStore,
                                            transactions: SQLiteLoginTransactionStore(store: store), codes: codes, signIns: signIns),
                              authenticators: authenticators, clock: clock,
                              seal: TransactionSeal(key: keyRing.derivedKey(purpose: "gatehouse login transaction seal v1")),
                              sessionLifetime: TimeInterval(settings.sessionLifetime.components.seconds))
        flow.deviceLabel = { ClientInfo.label($0) }
        flow.selfService = selfService
        flow.databaseConnection = settings.connectionName
        let upstreamParts = UpstreamAccountParts(settings: settings, store: store, keyRing: keyRing, users: users, grants: grants,
                                                 clients: clients, opaque: opaque, holders: grantHolders, clock: clock, logger: logger)
        upstream = upstreamParts
        let upstreamSignIn = Self.upstreamAuthenticator(settings: settings, parts: upstreamParts, users: users, clock: clock)
        flow.upstream = upstreamSignIn
        flow.upstreamSeal = UpstreamStateSeal(key: keyRing.derivedKey(purpose: "gatehouse upstream sign-in seal v1"))
        self.flow = flow

        let refreshTokens = RefreshTokens(store: SQLiteRefreshTokenStore(store: store),
                                          successorKey: keyRing.derivedKey(purpose: RefreshTokens.successorKeyPurpose),
                                          sessions: sessionStore, familyReader: SQLiteRefreshTokenFamilyReader(store: store))
        var tokens = TokenEndpoint(issuer: issuer, clients: clients, codes: codes, grants: grants, users: users, clock: clock,
                                   minter: TokenMinter(issuer: issuer, signer: KeyRingSigner(keyRing: keyRing), opaqueTokens: opaque, clock: clock),
                                   refreshTokens: refreshTokens, apis: apis,
                                   passwordGrants: PasswordGrantPolicy(credentials: credentials, signIns: signIns, connection: settings.connectionName))
        tokens.selfService = selfService
        tokens.nativeSignIn = NativeSignIn(upstream: upstreamSignIn)
        let transferStore = SQLiteSessionTransferStore(store: store)
        tokens.sessionTransfers = SessionTransfers(store: transferStore)
        transfer = SessionTransferRedeemer(flow: flow, store: transferStore, grants: grants)
        self.tokens = tokens
        let holders = grantHolders
        currentUser = CurrentUserAPI(issuer: issuer, users: users, clock: clock) { bearer, audience throws(OAuthError) in
            try AccessTokenValidator.validate(bearer: bearer, keys: keyRing.current.verificationKey, opaque: opaque, issuer: issuer,
                                              grants: grants, users: users, clock: clock, holders: holders, audience: audience)
        }
        var revoker = TokenRevoker(issuer: issuer, clients: clients, grants: grants, lookup: lifecycle, keys: keys, opaqueTokens: opaque, clock: clock)
        revoker.familyMAC = refreshTokens.familyMAC
        self.revoker = revoker
        var introspector = TokenIntrospector(issuer: issuer, clients: clients, grants: grants, users: users, apis: apis, lookup: lifecycle,
                                             keys: keys, opaqueTokens: opaque, clock: clock)
        introspector.familyMAC = refreshTokens.familyMAC
        self.introspector = introspector
        logoutPolicy = LogoutPolicy(issuer: issuer, clients: clients, hintKeys: keys)
    }

    /// The self-service accounts over the stores, with the password rules and code settings.
    static func selfService(settings: Settings, store: any GatehouseStorage, users: any UserStore, keyRing: KeyRing, mail: (any MailQueue)?,
                            clock: any Clock, logger: Logger) -> SelfService {
        let codes = OneTimeCodes(store: SQLiteOneTimeCodeStore(store: store), key: keyRing.derivedKey(purpose: "gatehouse one-time code key v1"),
                                 clock: clock, lifetime: TimeInterval(settings.codeLifetime.components.seconds),
                                 maxAttempts: settings.codeMaxAttempts)
        var limits = AbuseLimits(store: SQLiteLoginThrottleStore(store: store), clock: clock)
        limits.ipv6Prefix = settings.loginIPv6Prefix
        let rules = PasswordRules(policy: PasswordPolicy(rawValue: settings.passwordPolicy) ?? .fair,
                                  blocklist: PasswordBlocklistFile.list(at: settings.passwordBlocklist, logger: logger),
                                  historySize: settings.passwordHistory)
        var service = SelfService(users: users, accounts: SQLiteAccountStore(store: store), codes: codes, limits: limits, mail: mail,
                                  clock: clock, issuer: settings.issuer.url, passwords: rules, connection: settings.connectionName)
        service.resetRevokesAccess = settings.passwordResetEndsSessions
        // A reset or code request for an unknown address takes as long as for a known one.
        service.uniformDuration = .milliseconds(60)
        service.pause = { OSThread.sleep(for: $0) }
        return service
    }
    /// Sign-in through upstream connections (README "Upstream connections"): libcurl towards the
    /// providers, their keys and discovery documents cached in memory.
    static func upstreamAuthenticator(settings: Settings, parts: UpstreamAccountParts, users: any UserStore,
                                      clock: any Clock) -> UpstreamAuthenticator {
        let stores = UpstreamAuthenticator.Stores(connections: parts.connections, identities: parts.identities, users: users)
        var authenticator = UpstreamAuthenticator(
            stores: stores, endpoints: UpstreamEndpointResolver(fetcher: parts.fetcher), verifier: UpstreamIDTokenVerifier(keys: parts.keyCache),
            redemption: UpstreamCodeRedemption(fetcher: parts.fetcher, secrets: ConnectionClientSecrets(apple: parts.appleSecrets)),
            callbackURL: settings.issuer.endpoint(UpstreamAuthenticator.callbackPath), clock: clock)
        authenticator.upstreamTokens = parts.upstreamTokens
        return authenticator
    }

    /// The derivation label of the mail outbox's seal key; `idp-admin email test --queue` uses the same.
    static let mailSealPurpose = MailOutboxKey.purpose

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
