import Crypto
import FoundationEssentials
import Model

/// Native-to-web session transfer, receiving side (README "Native to web"): the web view opens the
/// web app's ordinary `/authorize` with `session_transfer_token=…` or the `auth0_session_transfer_token`
/// cookie, and — when the token is honoured — gets a browser session for the token's user and the
/// web app's own code flow without a login page. Wraps `SignInFlow.authorize`, which decides the rest.
///
/// As Auth0 evaluates it (its "Native to Web SSO and sessions"):
/// - the request's own errors come first and consume nothing (`SignInFlow.inspect`);
/// - a channel the web app does not accept (`--accept-session-transfer`) is ignored: the token is
///   not even looked up, the sign-in goes on as without it (it may be meant for another app);
/// - otherwise the token is consumed by this presentation, whatever follows (single use), and is
///   honoured only when it was live, asked from this client address (binding `ip`), its parent grant
///   is live and its user may sign in;
/// - not honoured → the login page (or `login_required` for `prompt=none`), whatever session the
///   browser has;
/// - honoured, and the browser has a session of another user → that session ends and the user is
///   asked to sign in; of the same user → that session goes on; none → a new session that
///   remembers its parent grant (revoking the grant ends it, migration 0014).
/// Every outcome is reported (`session_transfer.redeemed` / `.rejected` with a `reason`).
public struct SessionTransferRedeemer: Sendable {
    public let flow: SignInFlow
    public let store: any SessionTransferStore
    public let grants: any GrantStore

    /// The query parameter Auth0.swift documents (`…/authorize?session_transfer_token=…`).
    public static let queryParameter = "session_transfer_token"
    /// The cookie Auth0.swift's docs set in a `WKWebView` on the issuer's domain.
    public static let cookieName = "auth0_session_transfer_token"

    public init(flow: SignInFlow, store: any SessionTransferStore, grants: any GrantStore) {
        self.flow = flow
        self.store = store
        self.grants = grants
    }

    /// What `/authorize` does, and the cookies the web layer changes with it.
    public struct Outcome: Sendable, Equatable {
        public var step: AuthorizeStep
        /// A session the transfer started: its cookie and lifetime in seconds.
        public var newSession: (cookie: String, maxAge: Int)?
        /// The browser's session was ended (another user's): drop its cookie.
        public var endedSession = false
        /// The transfer cookie was read: drop it, so a spent token is not presented again.
        public var dropTransferCookie = false

        public init(step: AuthorizeStep) { self.step = step }

        public static func == (lhs: Outcome, rhs: Outcome) -> Bool {
            lhs.step == rhs.step && lhs.newSession?.cookie == rhs.newSession?.cookie && lhs.newSession?.maxAge == rhs.newSession?.maxAge
                && lhs.endedSession == rhs.endedSession && lhs.dropTransferCookie == rhs.dropTransferCookie
        }
    }

    /// Why a presented token was not honoured (the audit event's `reason`).
    public enum Refusal: String, Sendable {
        case channelNotAccepted = "channel_not_accepted"
        case unknown, reused, expired
        case otherAddress = "other_address"
        case parentRevoked = "parent_revoked"
        case userUnavailable = "user_unavailable"
        case otherUserSession = "other_user_session"
    }

    /// `/authorize` with its raw parameters, the session cookie and the transfer cookie (if any).
    public func authorize(_ pairs: [(String, String)], sessionCookie: String?, transferCookie: String?,
                          context: inout RequestContext) throws(OAuthError) -> Outcome {
        let query = pairs.first { $0.0 == Self.queryParameter }?.1.nonEmpty
        let cookie = transferCookie?.nonEmpty
        guard query != nil || cookie != nil, Self.goesOn(flow.inspect(pairs)),
              let clientID = pairs.first(where: { $0.0 == "client_id" })?.1,
              let client = try storage({ () throws(StorageError) in try flow.stores.clients.find(clientID: clientID) }) else {
            return Outcome(step: try flow.authorize(pairs, sessionCookie: sessionCookie, context: &context))
        }
        let accept = client.sessionTransfer.accept
        let chosen: (value: String, channel: String)? =
            if let query, accept.contains(.query) { (query, "query") } else if let cookie, accept.contains(.cookie) { (cookie, "cookie") } else { nil }
        guard let chosen else {
            context.record(.sessionTransferRejected, clientID: client.clientID,
                           details: ["reason": Refusal.channelNotAccepted.rawValue, "channel": query != nil ? "query" : "cookie"])
            return Outcome(step: try flow.authorize(pairs, sessionCookie: sessionCookie, context: &context))
        }
        var outcome = Outcome(step: .errorPage(status: 500, code: "server_error", logReason: "unset"))
        outcome.dropTransferCookie = cookie != nil
        var details = ["channel": chosen.channel]

        func refuse(_ refusal: Refusal, userID: String? = nil, context: inout RequestContext) throws(OAuthError) -> Outcome {
            details["reason"] = refusal.rawValue
            context.record(.sessionTransferRejected, userID: userID, clientID: client.clientID, details: details)
            var refused = outcome
            refused.step = try flow.authorize(pairs, sessionCookie: nil, context: &context)
            return refused
        }

        let now = flow.clock.now
        let token: SessionTransferToken
        switch try storage({ () throws(StorageError) in try store.redeem(tokenHash: SessionTransfers.hash(chosen.value), at: now) }) {
        case .unknown: return try refuse(.unknown, context: &context)
        case .reused(let spent):
            details["issuing_client_id"] = spent.clientID
            return try refuse(.reused, userID: spent.userID, context: &context)
        case .expired(let late):
            details["issuing_client_id"] = late.clientID
            return try refuse(.expired, userID: late.userID, context: &context)
        case .redeemed(let live): token = live
        }
        details["issuing_client_id"] = token.clientID
        details["grant_id"] = token.grantID
        if let bound = token.ip, bound != context.clientIP {
            details["issued_to"] = bound
            return try refuse(.otherAddress, userID: token.userID, context: &context)
        }
        let (parent, user) = try storage { () throws(StorageError) in
            (try grants.find(grantID: token.grantID), try flow.stores.users.find(userID: token.userID))
        }
        guard let parent, parent.revokedAt == nil else { return try refuse(.parentRevoked, userID: token.userID, context: &context) }
        guard let user, !user.blocked else { return try refuse(.userUnavailable, userID: token.userID, context: &context) }

        if let existing = try flow.currentSession(cookie: sessionCookie) {
            if existing.userID != user.userID {
                // Auth0's rule: the other user's session ends, and nobody is signed in by the token.
                try storage { () throws(StorageError) in try flow.stores.sessions.end(sessionID: existing.sessionID, at: now) }
                details["ended_session_id"] = existing.sessionID
                outcome.endedSession = true
                return try refuse(.otherUserSession, userID: user.userID, context: &context)
            }
            details["session_id"] = existing.sessionID
            context.record(.sessionTransferRedeemed, userID: user.userID, clientID: client.clientID, details: details)
            outcome.step = try flow.authorize(pairs, sessionCookie: sessionCookie, context: &context)
            return outcome
        }

        // A fresh cookie (never the one the browser had), and the original login's time: the transfer
        // is no new authentication, so `max_age` still counts from the sign-in in the app.
        let value = flow.random.token(bytes: 32)
        let session = Session(sessionID: flow.random.token(bytes: 16), cookieHash: SecretDigest.hash(value), userID: user.userID,
                              authTime: parent.authTime ?? now, createdAt: now, lastSeenAt: now,
                              expiresAt: now.addingTimeInterval(flow.sessionLifetime), deviceName: context.deviceName,
                              ip: context.clientIP, parentGrantID: parent.grantID)
        guard try storage({ () throws(StorageError) in try store.startSession(session) }) else {
            return try refuse(.parentRevoked, userID: user.userID, context: &context)
        }
        details["session_id"] = session.sessionID
        context.record(.sessionTransferRedeemed, userID: user.userID, clientID: client.clientID, details: details)
        outcome.newSession = (value, Int(flow.sessionLifetime))
        outcome.step = try flow.authorize(pairs, sessionCookie: value, context: &context)
        return outcome
    }
}

extension SessionTransferRedeemer {
    /// Whether the request passed its own checks: `inspect` decides without a session, so for
    /// `prompt=none` the session policy's `login_required` stands for "would go on".
    static func goesOn(_ inspected: AuthorizeStep?) -> Bool {
        switch inspected {
        case nil: true
        case .errorRedirect(_, let error)?: error.code == .loginRequired
        default: false
        }
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
