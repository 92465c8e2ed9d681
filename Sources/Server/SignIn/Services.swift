import KeyManagement
import Logging
import Model
import Settings
import Storage

/// Everything the sign-in handlers use, built once at startup.
struct Services: Sendable {
    let settings: Settings
    let clock: any Clock
    let logger: Logger
    let keyRing: KeyRing
    let clients: any ClientStore
    let users: any UserStore
    let codes: any AuthorizationCodeStore
    let sessions: any SessionStore
    let grants: any GrantStore
    let grantHolders: any GrantHolderReader
    let refreshTokens: any RefreshTokenStore
    let refreshTokenFamilies: any RefreshTokenFamilyReader
    /// Derives refresh-token successors (a server secret from the key-encryption key).
    let refreshSuccessorKey: [UInt8]
    let transactions: any LoginTransactionStore
    let audit: AuditStore
    let auditRecorder: AuditRecorder
    let passwords: PasswordAuthenticator
    let throttle: LoginThrottle
    let cookies: CookieSpec
    let metrics: GatehouseMetrics
    /// APIs and client grants; refresh-token and session-grant lookups (revocation, introspection, logout).
    let apis: any APIStore
    let lifecycle: any LifecycleLookup

    var issuer: Issuer { settings.issuer }

    init(settings: Settings, store: Store, keyRing: KeyRing, logger: Logger, metrics: GatehouseMetrics, clock: any Clock = SystemClock()) {
        self.metrics = metrics
        self.settings = settings
        self.clock = clock
        self.logger = logger
        self.keyRing = keyRing
        clients = SQLiteClientStore(store: store)
        users = SQLiteUserStore(store: store)
        codes = SQLiteAuthorizationCodeStore(store: store)
        sessions = SQLiteSessionStore(store: store)
        grants = SQLiteGrantStore(store: store)
        grantHolders = SQLiteGrantHolderReader(store: store)
        refreshTokens = SQLiteRefreshTokenStore(store: store)
        refreshTokenFamilies = SQLiteRefreshTokenFamilyReader(store: store)
        refreshSuccessorKey = keyRing.derivedKey(purpose: "gatehouse refresh-token successor key v1")
        transactions = SQLiteLoginTransactionStore(store: store)
        audit = AuditStore(store: store)
        auditRecorder = AuditRecorder(store: audit, logger: logger)
        passwords = PasswordAuthenticator(users: users, clock: clock)
        throttle = LoginThrottle(store: SQLiteLoginThrottleStore(store: store), clock: clock)
        cookies = CookieSpec(issuer: settings.issuer)
        apis = SQLiteAPIStore(store: store)
        lifecycle = SQLiteLifecycleLookup(store: store)
    }

    /// Queues an audit event; the recorder writes it within a fraction of a second.
    func record(_ event: String, userID: String? = nil, clientID: String? = nil, ip: String?, details: [String: String] = [:]) {
        auditRecorder.record(AuditEvent(time: clock.now, event: event, userID: userID, clientID: clientID, ip: ip,
                                        actor: userID == nil ? "system" : "user", details: details))
    }
}
