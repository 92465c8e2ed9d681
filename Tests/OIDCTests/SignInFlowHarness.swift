import Crypto
import Foundation
import Model
import TestSupport
@testable import OIDC

/// Counts up: each token is different and predictable ("r1…", "r2…"), padded to a real token's length.
final class CountingRandom: RandomSource, @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0

    func token(bytes: Int) -> String {
        lock.lock()
        defer { lock.unlock() }
        next += 1
        return "r\(next)-" + String(repeating: "x", count: max(0, bytes - 3))
    }
}

/// An authenticator for the seam itself: answers `action=upstream` with a fixed provider URL.
struct UpstreamStub: Authenticator {
    var actions: Set<String> { ["upstream"] }
    func authenticate(_ submission: LoginSubmission, context: inout RequestContext) throws(OAuthError) -> Authentication {
        .upstream(UpstreamRedirect(url: "https://upstream.example.com/authorize?client=\(submission.client.clientID)", state: "s",
                                   nonce: "n", codeVerifier: "v", connection: "corp"))
    }
}

/// The sign-in flow over memory stores, a hand-moved clock and counting randomness.
final class SignInFlowHarness: @unchecked Sendable {
    static let password = "correct horse battery staple"
    static let seal = TransactionSeal(key: Array(repeating: 9, count: 32))
    static let api = API(apiID: "api-1", identifier: "https://api.example.com/", name: "API", scopes: ["read:things", "write:things"],
                         createdAt: Fixture.epoch)

    let clock = MutableClock(Fixture.epoch)
    let random = CountingRandom()
    let database = MemoryDatabase()
    let throttle = MemoryLoginThrottleStore()
    lazy var clients = TestSupport.MemoryClientStore(database: database)
    lazy var users = TestSupport.MemoryUserStore(database: database)
    lazy var sessions = MemorySessionStore(database: database)
    lazy var transactions = MemoryLoginTransactionStore(database: database)
    lazy var codes = MemoryAuthorizationCodeStore(database: database)
    lazy var signIns = MemorySignInStore(database: database, throttle: throttle)
    lazy var flow: SignInFlow = {
        let credentials = CredentialCheck(users: users, throttle: LoginThrottle(store: throttle, clock: clock))
        let authorizer = Authorizer(issuer: Fixture.issuer, clients: clients, clock: clock, hintKeys: TestSigner.keys,
                                    apis: MemoryAPIStore([Self.api]))
        var flow = SignInFlow(issuer: Fixture.issuer, authorizer: authorizer,
                              stores: .init(clients: clients, users: users, sessions: sessions, transactions: transactions, codes: codes,
                                            signIns: signIns),
                              authenticators: [PasswordAuthenticator(credentials: credentials), UpstreamStub()], clock: clock,
                              random: random, seal: Self.seal, sessionLifetime: 86_400)
        flow.upstreamSeal = UpstreamStateSeal(key: Array(repeating: 10, count: 32))
        return flow
    }()

    init() throws {
        try clients.create(Fixture.native)
        var alice = Fixture.alice
        alice.passwordHash = try PasswordHash.hash(Self.password)
        try users.create(alice)
        try users.create(Fixture.blocked)
    }

    func authorize(_ pairs: [(String, String)] = Fixture.nativeAuthorize(), cookie: String? = nil,
                   context: inout RequestContext) throws(OAuthError) -> AuthorizeStep {
        try flow.authorize(pairs, sessionCookie: cookie, context: &context)
    }

    /// Shows the login page and returns its screen.
    func loginScreen(_ pairs: [(String, String)] = Fixture.nativeAuthorize()) throws -> LoginScreen {
        var context = RequestContext(clientIP: "198.51.100.7")
        guard case .showLogin(let screen, _) = try authorize(pairs, context: &context) else { throw OAuthError(.invalidRequest, "no login page") }
        return screen
    }

    func submit(_ screen: LoginScreen, email: String = Fixture.alice.email, password: String = password, action: String = "login",
                csrf: String? = nil, cookie: String? = nil, ip: String = "198.51.100.7",
                context: inout RequestContext) throws(OAuthError) -> LoginStep {
        context.clientIP = ip
        let form = ["tx": screen.transactionID, "csrf_token": csrf ?? screen.csrfToken, "email": email, "password": password,
                    "action": action]
        return try flow.submit(form, transactionCookie: cookie ?? screen.transactionCookie, context: &context)
    }
}
