import Crypto
import Foundation
import Model
import Testing
import TestSupport
@testable import OIDC

/// What the sign-in flow decides, over memory stores and a fixed clock: every step of authorize →
/// submit → resume, table-driven where the rows share a shape.
@Suite("Sign-in flow decisions")
struct SignInFlowDecisionTests {
    /// The shape of an authorize step, for table rows.
    enum AuthorizeShape: Equatable {
        case page(Int)
        case redirect(OAuthError.Code)
        case login(LoginReason)
        case code
    }

    struct AuthorizeRow: Sendable, CustomTestStringConvertible {
        let name: String
        let pairs: [(String, String)]
        let session: SessionState
        let expect: AuthorizeShape
        let event: SignInEvent.Kind?
        var testDescription: String { name }
    }

    enum SessionState: Sendable { case none, live, ended, blockedUser }

    static let authorizeRows: [AuthorizeRow] = [
        .init(name: "no session: the login page", pairs: Fixture.nativeAuthorize(), session: .none, expect: .login(.noSession), event: nil),
        .init(name: "a live session: a code at once", pairs: Fixture.nativeAuthorize(), session: .live, expect: .code, event: .authorizeSSO),
        .init(name: "prompt=login over a live session", pairs: Fixture.nativeAuthorize([("prompt", "login")]), session: .live,
              expect: .login(.promptLogin), event: nil),
        .init(name: "an ended session is none", pairs: Fixture.nativeAuthorize(), session: .ended, expect: .login(.noSession), event: nil),
        .init(name: "a blocked user's session is none", pairs: Fixture.nativeAuthorize(), session: .blockedUser,
              expect: .login(.noSession), event: nil),
        .init(name: "prompt=none without a session", pairs: Fixture.nativeAuthorize([("prompt", "none")]), session: .none,
              expect: .redirect(.loginRequired), event: nil),
        .init(name: "unknown client: a page, audited", pairs: Fixture.nativeAuthorize([("client_id", "nope")], dropping: ["client_id"]),
              session: .none, expect: .page(400), event: .authorizeRefused),
        .init(name: "unregistered audience: redirected invalid_request",
              pairs: Fixture.nativeAuthorize([("audience", "https://unknown.example.com/")]), session: .none,
              expect: .redirect(.invalidRequest), event: nil),
        .init(name: "registered audience: the login page", pairs: Fixture.nativeAuthorize([("audience", SignInFlowHarness.api.identifier)]),
              session: .none, expect: .login(.noSession), event: nil),
    ]

    @Test(arguments: authorizeRows)
    func authorize(_ row: AuthorizeRow) throws {
        let harness = try SignInFlowHarness()
        var cookie: String?
        if row.session != .none {
            let user = row.session == .blockedUser ? Fixture.blocked : Fixture.alice
            var session = Fixture.session(user)
            session.cookieHash = SecretDigest.hash("session-cookie")
            if row.session == .ended { session.endedAt = Fixture.epoch }
            try harness.sessions.create(session)
            cookie = "session-cookie"
        }
        var context = RequestContext(clientIP: "198.51.100.7")
        let step = try harness.authorize(row.pairs, cookie: cookie, context: &context)
        let shape: AuthorizeShape = switch step {
        case .errorPage(let status, _, _): .page(status)
        case .errorRedirect(let target, let error): target.state == "state-123" ? .redirect(error.code) : .page(-1)
        case .showLogin(_, let reason): .login(reason)
        case .issued: .code
        case .upstream: .page(-2)
        }
        #expect(shape == row.expect)
        #expect(context.events.map(\.kind) == (row.event.map { [$0] } ?? []))
    }

    /// The login page's transaction: sealed in its cookie with the validated request, under a random
    /// id the form carries — and nothing stored for an anonymous visitor.
    @Test func theLoginPageSealsATransactionAndStoresNothing() throws {
        let harness = try SignInFlowHarness()
        let screen = try harness.loginScreen(Fixture.nativeAuthorize([("login_hint", "alice@example.com")]))
        #expect(screen.newTransactionMaxAge == 900)
        #expect(screen.appName == Fixture.native.name && screen.email == "alice@example.com")
        #expect(screen.redirectURI == Fixture.nativeCallback)
        #expect(try harness.transactions.find(idHash: SecretDigest.hash(screen.transactionID), at: harness.clock.now) == nil)
        let cookie = try #require(screen.transactionCookie)
        let (id, stored) = try #require(SignInFlowHarness.seal.open(cookie))
        #expect(id == screen.transactionID && stored.idHash == SecretDigest.hash(id))
        #expect(stored.clientID == Fixture.native.clientID && stored.sessionID == nil)
        #expect(stored.csrfHash == CSRFToken.hash(screen.csrfToken))
        #expect(stored.parameters["state"] == "state-123" && stored.parameters["nonce"] == "nonce-456")
    }

    /// The granted scopes follow the audience: OpenID scopes, then the API's own ones asked for.
    @Test func theTransactionKeepsTheAPIScopesAsked() throws {
        let harness = try SignInFlowHarness()
        let screen = try harness.loginScreen(Fixture.nativeAuthorize([("audience", SignInFlowHarness.api.identifier)], dropping: ["scope"])
                                             + [("scope", "read:things openid bogus offline_access")])
        let cookie = try #require(screen.transactionCookie)
        let (_, stored) = try #require(SignInFlowHarness.seal.open(cookie))
        #expect(stored.parameters["scope"] == "openid offline_access read:things")
    }

    /// The shape of a submit step, for table rows.
    enum SubmitShape: Equatable {
        case expired, forbidden, unreadable, form(String), throttled, cancelled, signedIn, redirect
    }

    struct SubmitRow: Sendable, CustomTestStringConvertible {
        let name: String
        var email = Fixture.alice.email
        var password = SignInFlowHarness.password
        var action = "login"
        var csrf: String?
        var cookie: String?
        var lockAddress = false
        var lockPair = false
        var advance: TimeInterval = 0
        let expect: SubmitShape
        let events: [SignInEvent.Kind]
        var testDescription: String { name }
    }

    static let submitRows: [SubmitRow] = [
        .init(name: "the right password signs in", expect: .signedIn, events: [.loginSucceeded]),
        .init(name: "a wrong password: the form again", password: "wrong", expect: .form(PasswordAuthenticator.wrongCredentials), events: [.loginFailed]),
        .init(name: "an unknown email: the same answer", email: "nobody@example.com", expect: .form(PasswordAuthenticator.wrongCredentials),
              events: [.loginFailed]),
        .init(name: "a blocked user without the password: the same answer", email: Fixture.blocked.email,
              expect: .form(PasswordAuthenticator.wrongCredentials), events: [.loginFailed]),
        .init(name: "a locked pair refuses the right password and says so", lockPair: true,
              expect: .form(CredentialMessages.accountBlocked(retryAfter: 900)), events: [.loginThrottled]),
        .init(name: "a locked address: throttled", lockAddress: true, expect: .throttled, events: [.loginThrottled]),
        .init(name: "a foreign CSRF token: refused", csrf: "forged", expect: .forbidden, events: []),
        .init(name: "no cookie of the transaction: expired", cookie: "other", expect: .expired, events: []),
        .init(name: "after 15 minutes: expired", advance: 15 * 60, expect: .expired, events: []),
        .init(name: "cancel: access_denied", action: "cancel", expect: .cancelled, events: [.loginCancelled]),
        .init(name: "an unknown action: unreadable", action: "bogus", expect: .unreadable, events: []),
        .init(name: "another authenticator's redirect", action: "upstream", expect: .redirect, events: []),
    ]

    @Test(arguments: submitRows)
    func submit(_ row: SubmitRow) throws {
        let harness = try SignInFlowHarness()
        let screen = try harness.loginScreen()
        let throttle = LoginThrottle(store: harness.throttle, clock: harness.clock)
        if row.lockPair { for _ in 0..<10 { harness.clock.advance(by: 5); try throttle.recordFailure(email: row.email, ip: "198.51.100.7") } }
        if row.lockAddress {
            for index in 0..<100 { harness.clock.advance(by: 1); try throttle.recordFailure(email: "u\(index)@example.com", ip: "198.51.100.7") }
        }
        harness.clock.advance(by: row.advance)
        var context = RequestContext(clientIP: "198.51.100.7")
        let step = try harness.submit(screen, email: row.email, password: row.password, action: row.action, csrf: row.csrf,
                                      cookie: row.cookie, context: &context)
        let shape: SubmitShape = switch step {
        case .expired: .expired
        case .forbidden: .forbidden
        case .unreadable: .unreadable
        case .showForm(let again): .form(again.errorMessage ?? "")
        case .throttled: .throttled
        case .cancelled(_, let error): error.code == .accessDenied ? .cancelled : .unreadable
        case .signedIn: .signedIn
        case .upstream: .redirect
        }
        #expect(shape == row.expect)
        #expect(context.events.map(\.kind) == row.events)
        // Only a sign-in commits anything.
        #expect(harness.signIns.commitCount == (row.expect == .signedIn ? 1 : 0))
        #expect(try harness.users.find(userID: Fixture.alice.userID)?.loginsCount == (row.expect == .signedIn ? 1 : 0))
    }

    /// Success: one commit holds the login count, the throttle reset, a fresh session and its attachment;
    /// the answer is 303 material for the internal continuation only, with a new cookie (G11, G12).
    @Test func aSuccessfulLoginIsOneCommit() throws {
        let harness = try SignInFlowHarness()
        let screen = try harness.loginScreen()
        let pairKey = LoginThrottle.pairKey(email: Fixture.alice.email, ip: "198.51.100.7")
        harness.clock.advance(by: 5)
        try LoginThrottle(store: harness.throttle, clock: harness.clock).recordFailure(email: Fixture.alice.email, ip: "198.51.100.7")
        harness.clock.advance(by: 5)
        var context = RequestContext(clientIP: "198.51.100.7", deviceName: "curl/8")
        guard case .signedIn(let resume, let cookie, let maxAge) = try harness.submit(screen, context: &context) else {
            Issue.record("not signed in"); return
        }
        #expect(resume == Fixture.issuer + "authorize/resume?tx=" + screen.transactionID)
        #expect(maxAge == 86_400 && cookie != screen.transactionID)
        #expect(harness.signIns.commitCount == 1)
        let session = try #require(try harness.sessions.find(cookieHash: SecretDigest.hash(cookie)))
        #expect(session.userID == Fixture.alice.userID && session.authTime == harness.clock.now)
        #expect(session.deviceName == "curl/8")
        #expect(session.ip == "198.51.100.7")
        #expect(try harness.transactions.find(idHash: SecretDigest.hash(screen.transactionID), at: harness.clock.now)?.sessionID
                == session.sessionID, "the transaction is stored with its session by the login's commit")
        #expect(try harness.throttle.state(key: pairKey) == nil)
        #expect(try harness.users.find(userID: Fixture.alice.userID)?.lastLoginAt == harness.clock.now)
    }

    /// Resume issues the code once, bound to the session; the transaction is single use.
    @Test func resumeIssuesTheCodeOnce() throws {
        let harness = try SignInFlowHarness()
        let screen = try harness.loginScreen()
        var context = RequestContext(clientIP: "198.51.100.7")
        guard case .signedIn(_, let cookie, _) = try harness.submit(screen, context: &context) else { Issue.record("not signed in"); return }
        let step = try harness.flow.resume(transactionID: screen.transactionID, transactionCookie: screen.transactionCookie)
        guard case .issued(let target, let code) = step else { Issue.record("no code: \(step)"); return }
        #expect(target.redirectURI == Fixture.nativeCallback && target.state == "state-123" && target.issuer == Fixture.issuer)
        let session = try #require(try harness.sessions.find(cookieHash: SecretDigest.hash(cookie)))
        guard case .redeemed(let stored) = try harness.codes.redeem(codeHash: CodeIssuer.hash(code), at: harness.clock.now) else {
            Issue.record("the code was not stored"); return
        }
        #expect(stored.sessionID == session.sessionID && stored.nonce == "nonce-456" && stored.codeChallenge == Fixture.challenge)
        #expect(try harness.flow.resume(transactionID: screen.transactionID, transactionCookie: screen.transactionCookie) == .expired)
    }

    @Test func resumeWithoutALoginOrWithAnEndedSessionIsExpired() throws {
        let harness = try SignInFlowHarness()
        let screen = try harness.loginScreen()
        #expect(try harness.flow.resume(transactionID: screen.transactionID, transactionCookie: screen.transactionCookie) == .expired)
        #expect(try harness.flow.resume(transactionID: screen.transactionID, transactionCookie: nil) == .expired)
        var context = RequestContext(clientIP: "198.51.100.7")
        guard case .signedIn(_, let cookie, _) = try harness.submit(screen, context: &context) else { Issue.record("not signed in"); return }
        let session = try #require(try harness.sessions.find(cookieHash: SecretDigest.hash(cookie)))
        try harness.sessions.end(sessionID: session.sessionID, at: harness.clock.now)
        #expect(try harness.flow.resume(transactionID: screen.transactionID, transactionCookie: screen.transactionCookie) == .expired)
    }

    /// A second post of a form whose transaction already signed in (another tab, a double click):
    /// the commit refuses, the page says the sign-in expired, and nothing else changes.
    @Test func aCompletedTransactionCannotSignInTwice() throws {
        let harness = try SignInFlowHarness()
        let screen = try harness.loginScreen()
        var context = RequestContext(clientIP: "198.51.100.7")
        guard case .signedIn = try harness.submit(screen, context: &context) else { Issue.record("not signed in"); return }
        var again = RequestContext(clientIP: "198.51.100.7")
        #expect(try harness.submit(screen, context: &again) == .expired)
        #expect(try harness.sessions.list(userID: Fixture.alice.userID).count == 1)
        #expect(try harness.users.find(userID: Fixture.alice.userID)?.loginsCount == 1)
        #expect(harness.signIns.commitCount == 1)
        #expect(again.events.isEmpty)
    }

    /// A cookie sealed under another key, or changed in one byte, names no transaction.
    @Test func aForgedTransactionCookieIsExpired() throws {
        let harness = try SignInFlowHarness()
        let screen = try harness.loginScreen()
        let cookie = try #require(screen.transactionCookie)
        let other = TransactionSeal(key: Array(repeating: 1, count: 32))
        let (_, transaction) = try #require(SignInFlowHarness.seal.open(cookie))
        let foreign = try #require(other.seal(transaction, id: screen.transactionID))
        var tampered = Array(cookie.utf8)
        tampered[tampered.count / 2] = tampered[tampered.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        for bad in [foreign, String(decoding: tampered, as: UTF8.self), screen.transactionID] {
            var context = RequestContext(clientIP: "198.51.100.7")
            #expect(try harness.submit(screen, cookie: bad, context: &context) == .expired)
        }
    }

    /// A request too long to seal into a cookie is refused back to the app, not stored.
    @Test func anOverlongRequestIsRefusedNotStored() throws {
        let harness = try SignInFlowHarness()
        var context = RequestContext(clientIP: "198.51.100.7")
        let pairs = Fixture.nativeAuthorize(dropping: ["state", "nonce"])
            + [("state", String(repeating: "s", count: 2048)), ("nonce", String(repeating: "n", count: 4096))]
        guard case .errorRedirect(let target, let error) = try harness.authorize(pairs, context: &context) else {
            Issue.record("an overlong request was accepted"); return
        }
        #expect(error.code == .invalidRequest && target.state == String(repeating: "s", count: 2048))
        // A 2 KB state alone still fits (negative-tests A17).
        _ = try harness.loginScreen(Fixture.nativeAuthorize(dropping: ["state"]) + [("state", String(repeating: "s", count: 2048))])
    }
}
