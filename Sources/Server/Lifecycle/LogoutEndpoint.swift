import Crypto
import FoundationEssentials
import HTTP
import Model
import OIDC

/// `GET /v2/logout` (Auth0) and `GET|POST /oidc/logout` (OIDC RP-Initiated Logout 1.0, the
/// `end_session_endpoint`): renders `LogoutPolicy`'s decision.
///
/// Ending a session: `SessionStore.end` (so a replayed cookie finds no session, F13), the
/// session cookie deleted, and — for each live grant issued under that session whose
/// application has `refreshSurvivesLogout == false` — the grant revoked (its refresh tokens
/// and access tokens die with it). By default refresh tokens survive logout, as in Auth0.
///
/// Confirmation (no trustworthy `id_token_hint`): the page carries `csrf_token` =
/// SHA-256 hex of `"logout|" + C + "|" + sid`, where C is a fresh random value set in a
/// short-lived cookie (`gatehouse_logout`, `__Host-` on https, HttpOnly, SameSite=Strict,
/// 10 minutes) and sid the browser's current session id (empty when none). Only a POST with
/// `action=logout`, that cookie and the matching token ends the session: a cross-site page
/// can neither read C nor get the Strict cookie sent, so a GET (`<img src>`) or a forged POST
/// never logs anyone out (F12), and a token minted for one session is useless after it changes.
struct LogoutEndpoint: Sendable {
    let services: Services
    let policy: LogoutPolicy
    let sessions: SessionManager
    let grants: any GrantStore
    let lifecycle: any LifecycleLookup

    static let confirmationLifetime = 600

    /// `GET /v2/logout`.
    func auth0(_ request: HTTPRequest) -> HTTPResponse {
        guard let pairs = try? RequestParameters.parse(request) else {
            return UserFacingError.unreadable(form: false).response(issuer: services.issuer, language: services.language(request),
                                                                    requestID: request.requestID)
        }
        return respond(policy.auth0Logout(pairs), request: request, session: currentSession(request), kind: "v2",
                       language: language(request, pairs))
    }

    /// `GET|POST /oidc/logout`; a POST with `action` is the confirmation form's answer.
    func oidc(_ request: HTTPRequest) -> HTTPResponse {
        guard let pairs = try? RequestParameters.parse(request) else {
            return UserFacingError.unreadable(form: false).response(issuer: services.issuer, language: services.language(request),
                                                                    requestID: request.requestID)
        }
        let language = language(request, pairs)
        let session = currentSession(request)
        guard request.method == "POST", let action = pairs.first(where: { $0.0 == "action" })?.1 else {
            let decision = policy.rpInitiatedLogout(pairs, sessionUserID: session?.userID, confirmed: false)
            return respond(decision, request: request, session: session, kind: "oidc", language: language)
        }
        let posted = pairs.first { $0.0 == "csrf_token" }?.1
        guard let binding = CookieJar.parse(request.headers)[cookieName], Self.matches(posted, binding: binding, sessionID: session?.sessionID) else {
            services.logger.warning("logout_csrf_rejected", ["request_id": .string(request.requestID)])
            return UserFacingError.formRefused(signOut: true).response(issuer: services.issuer, language: language, requestID: request.requestID)
        }
        guard action == "logout" else {
            var response = UserFacingError.stillSignedIn.response(issuer: services.issuer, language: language)
            response.headers.add("Set-Cookie", deleteBindingCookie)
            return response
        }
        let fields = pairs.filter { $0.0 != "csrf_token" && $0.0 != "action" }
        let decision = policy.rpInitiatedLogout(fields, sessionUserID: session?.userID, confirmed: true)
        return respond(decision, request: request, session: session, kind: "oidc", language: language)
    }

    // MARK: - Rendering

    /// RP-Initiated Logout 1.0 §2's `ui_locales` (kept through the confirmation form), then Accept-Language.
    private func language(_ request: HTTPRequest, _ pairs: [(String, String)]) -> PageText.Language {
        services.language(request, uiLocales: pairs.first { $0.0 == "ui_locales" }?.1)
    }

    private func respond(_ decision: LogoutDecision, request: HTTPRequest, session: Session?, kind: String,
                         language: PageText.Language) -> HTTPResponse {
        switch decision {
        case .refuse(let code, let logReason):
            services.logger.warning("logout_refused", ["request_id": .string(request.requestID), "reason": .string(logReason)])
            services.record("logout.refused", userID: session?.userID, ip: request.clientIP, details: ["reason": logReason, "endpoint": kind])
            return UserFacingError.signOutRefused(code: code).response(issuer: services.issuer, language: language, requestID: request.requestID)
        case .confirm(let appName, let fields):
            let binding = Random.token(bytes: 32)
            var response = LogoutConfirmPage.render(issuer: services.issuer, csrfToken: Self.token(binding: binding, sessionID: session?.sessionID),
                                                    fields: fields.map { ($0.name, $0.value) }, appName: appName, language: language)
            response.headers.add("Set-Cookie", "\(cookieName)=\(binding); Max-Age=\(Self.confirmationLifetime); \(cookieAttributes)")
            return response
        case .end(let continuation):
            if let session {
                do {
                    try endSession(session, request: request)
                } catch {
                    services.logger.error("logout_failed", ["request_id": .string(request.requestID), "error": .string(error.description)])
                    return UserFacingError.failure(OAuthError(storage: error), activity: .signOut)
                        .response(issuer: services.issuer, language: language, requestID: request.requestID)
                }
            }
            var response: HTTPResponse
            switch continuation {
            case .redirect(let location):
                response = HTTPResponse(status: 302)
                response.headers.set("Location", LocationValue.encode(location))
                response.headers.set("Cache-Control", "no-store")
                response.headers.set("Referrer-Policy", "no-referrer")
            case .signedOutPage(let appName):
                response = SignedOutPage.render(issuer: services.issuer, appName: appName, language: language)
            }
            response.headers.add("Set-Cookie", services.cookies.delete(.session))
            if CookieJar.parse(request.headers)[cookieName] != nil { response.headers.add("Set-Cookie", deleteBindingCookie) }
            return response
        }
    }

    private func endSession(_ session: Session, request: HTTPRequest) throws(StorageError) {
        let now = services.clock.now
        try sessions.sessions.end(sessionID: session.sessionID, at: now)
        var revoked: [String] = []
        for grant in try lifecycle.liveGrants(sessionID: session.sessionID) {
            guard let client = try services.clients.find(clientID: grant.clientID), !client.refreshSurvivesLogout else { continue }
            try grants.revoke(grantID: grant.grantID, at: now, reason: "logout")
            revoked.append(grant.grantID)
        }
        services.logger.info("logout", ["request_id": .string(request.requestID), "sid": .string(session.sessionID),
                                        "grants_revoked": .string(String(revoked.count))])
        services.record("logout", userID: session.userID, ip: request.clientIP,
                        details: ["sid": session.sessionID, "grants_revoked": String(revoked.count)])
    }

    private func currentSession(_ request: HTTPRequest) -> Session? {
        try? sessions.current(request)
    }

    // MARK: - Confirmation binding

    var cookieName: String { services.cookies.isSecure ? "__Host-gatehouse_logout" : "gatehouse_logout" }

    private var cookieAttributes: String {
        services.cookies.isSecure ? "Path=/; Secure; HttpOnly; SameSite=Strict" : "Path=/; HttpOnly; SameSite=Strict"
    }

    private var deleteBindingCookie: String {
        "\(cookieName)=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; \(cookieAttributes)"
    }

    /// The form token for a binding cookie value and session.
    static func token(binding: String, sessionID: String?) -> String {
        CSRFToken.hash("logout|\(binding)|\(sessionID ?? "")")
    }

    static func matches(_ posted: String?, binding: String, sessionID: String?) -> Bool {
        guard !binding.isEmpty, binding.utf8.count <= 256 else { return false }
        return CSRFToken.matches(posted, hash: CSRFToken.hash(token(binding: binding, sessionID: sessionID)))
    }
}
