import Crypto
import FoundationEssentials
import Model

/// Sign-in through an upstream connection (README "Upstream connections"):
///
///     button (connection:NAME) │ /authorize?connection=NAME
///         └─ provider URL; state, nonce, PKCE verifier and the login transaction sealed in the
///            upstream cookie (SameSite=None on https: Apple answers with a cross-site POST)
///     {issuer}login/callback ─┬─ expired (no cookie of ours) │ state refused │ provider failed
///                             ├─ declined upstream → access_denied to the application
///                             └─ ID token verified, identity linked or created → the same ONE
///                                commit as the password form → resume
extension SignInFlow {
    /// How long a browser may stay at the provider: the transaction's remaining time, at most 10 minutes.
    static let upstreamLifetime: TimeInterval = 10 * 60

    /// `/authorize?connection=NAME`: the transaction is started as for the login page, and the
    /// browser goes straight to the provider, as Auth0.swift's `.connection("apple")` expects.
    func straightUpstream(_ name: String, screen: LoginScreen, transaction: LoginTransaction, request: AuthorizationRequest,
                          client: Client, context: inout RequestContext) -> AuthorizeStep {
        let target = request.target(issuer: issuer)
        guard let upstream, let transactionCookie = screen.transactionCookie else {
            return .errorRedirect(target, OAuthError(.invalidRequest, "the connection is not enabled for this application",
                                                     detail: "connection \(name) requested, none configured"))
        }
        let redirect: UpstreamRedirect
        do throws(UpstreamError) {
            redirect = try upstream.start(name, client: client)
        } catch {
            context.record(.upstreamFailed, clientID: client.clientID, details: ["connection": name, "reason": error.description])
            if case .connection = error {
                return .errorRedirect(target, OAuthError(.invalidRequest, "the connection is not enabled for this application",
                                                         detail: error.description))
            }
            return .errorRedirect(target, OAuthError(.temporarilyUnavailable, "the identity provider cannot be reached",
                                                     detail: error.description))
        }
        guard let (stateCookie, maxAge) = sealUpstream(redirect, transactionID: screen.transactionID, transaction: transaction) else {
            return .errorRedirect(target, OAuthError(.invalidRequest, "the authorization request is too long",
                                                     detail: "upstream state over the cookie limit"))
        }
        return .upstream(url: redirect.url, transactionCookie: transactionCookie, stateCookie: stateCookie, maxAge: maxAge)
    }

    /// The upstream cookie's value and lifetime; nil when it would not fit a cookie.
    func sealUpstream(_ redirect: UpstreamRedirect, transactionID: String, transaction: LoginTransaction) -> (String, Int)? {
        guard let upstreamSeal else { return nil }
        let now = clock.now
        let expiresAt = min(transaction.expiresAt, now.addingTimeInterval(Self.upstreamLifetime))
        let pending = UpstreamPendingState(state: redirect.state, nonce: redirect.nonce, codeVerifier: redirect.codeVerifier,
                                           connection: redirect.connection, transactionID: transactionID, transaction: transaction,
                                           expiresAt: expiresAt)
        guard let cookie = upstreamSeal.seal(pending) else { return nil }
        return (cookie, max(1, Int(expiresAt.timeIntervalSince(now))))
    }

    /// `GET|POST {issuer}login/callback`: the provider's answer (query or form fields, first value
    /// of each) with the upstream cookie's value.
    public func upstreamCallback(_ fields: [String: String], stateCookie: String?,
                                 context: inout RequestContext) throws(OAuthError) -> UpstreamCallbackStep {
        let now = clock.now
        guard let upstream, let upstreamSeal, let stateCookie, let pending = upstreamSeal.open(stateCookie, now: now),
              now < pending.transaction.expiresAt else { return .expired }
        guard let request = AuthorizationRequest(parameters: pending.transaction.parameters),
              let client = try storage({ () throws(StorageError) in try stores.clients.find(clientID: pending.transaction.clientID) }) else {
            return .expired
        }
        let user: User
        do throws(UpstreamError) {
            user = try upstream.finish(fields, pending: pending, client: client)
        } catch {
            context.record(.upstreamFailed, clientID: client.clientID, details: ["connection": pending.connection, "reason": error.description])
            switch error {
            case .declined:
                return .cancelled(request.target(issuer: issuer), OAuthError(.accessDenied, "The user cancelled the sign-in.",
                                                                             detail: error.description))
            case .storage(let why):
                throw OAuthError(.serverError, "internal error", detail: why)
            case .invalidCallback:
                return .failed(status: 400, reason: error.description)
            default:
                return .failed(status: 502, reason: error.description)
            }
        }
        guard !user.blocked else {
            context.record(.loginFailed, userID: user.userID, clientID: client.clientID,
                           details: ["reason": "user is blocked", "connection": pending.connection])
            return .blocked
        }
        guard let signedIn = try commitLogin(user, rehashed: nil, throttleKeys: [], transactionID: pending.transactionID,
                                             transaction: pending.transaction, request: request, client: client, context: &context) else {
            return .expired  // A second delivery of the same answer: the transaction already signed in.
        }
        return .signedIn(resumeURL: signedIn.resumeURL, sessionCookie: signedIn.cookie, sessionMaxAge: Int(sessionLifetime))
    }
}
