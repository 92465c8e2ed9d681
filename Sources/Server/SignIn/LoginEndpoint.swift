import Crypto
import FoundationEssentials
import HTTP
import Model
import OIDC

/// `POST /login`: checks the transaction cookie and CSRF token, then the credentials.
/// Success starts a fresh session and answers 303 to the internal continuation
/// (`authorize/resume`), never to a user-supplied URL (negative-tests G12).
struct LoginEndpoint: Sendable {
    let services: Services
    let sessions: SessionManager

    static let wrongCredentials = "Wrong email or password."

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard let text = String(validating: request.body, as: UTF8.self), let pairs = try? FormCodec.decode(text) else {
            return ErrorPage.render(title: "Invalid request", message: "The form could not be read.", status: 400, issuer: services.issuer)
        }
        let form = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
        do {
            guard let (transactionID, transaction) = try LoginTransactionLookup.find(request, transactionID: form["tx"], services: services) else {
                return LoginTransactionLookup.expiredPage(services)
            }
            // The CSRF token is bound to this transaction (negative-tests G01).
            guard CSRFToken.matches(form["csrf_token"], hash: transaction.csrfHash) else {
                services.logger.warning("login_csrf_rejected", ["request_id": .string(request.requestID)])
                return ErrorPage.render(title: "Request refused", message: "This sign-in form is not valid any more. Go back to the app and try again.",
                                        status: 403, issuer: services.issuer)
            }
            guard let authorization = AuthorizationRequest(parameters: transaction.parameters),
                  let client = try services.clients.find(clientID: transaction.clientID) else {
                return LoginTransactionLookup.expiredPage(services)
            }
            let target = authorization.target(issuer: services.issuer.url)
            if form["action"] == "cancel" {
                _ = try services.transactions.consume(idHash: transaction.idHash)
                services.record("login.cancelled", clientID: client.clientID, ip: request.clientIP)
                return AuthorizationRedirect.error(target, OAuthError(.accessDenied, "The user cancelled the sign-in."), services: services,
                                                   setCookies: [services.cookies.delete(.transaction)])
            }
            let email = (form["email"] ?? "").trimmingWhitespace()
            let failedPage = LoginPage.render(appName: client.name, issuer: services.issuer, transactionID: transactionID,
                                              csrfToken: form["csrf_token"] ?? "", email: email, errorMessage: Self.wrongCredentials, status: 401,
                                              redirectURI: authorization.redirectURI)
            switch try services.throttle.check(email: email, ip: request.clientIP) {
            case .addressLocked(let retryAfter):
                services.record("login.throttled", clientID: client.clientID, ip: request.clientIP, details: ["scope": "ip"])
                services.metrics.recordLogin(result: "throttled")
                var response = ErrorPage.render(title: "Too many attempts", message: "Too many sign-in attempts from your network. Try again later.",
                                                status: 429, issuer: services.issuer)
                response.headers.set("Retry-After", String(retryAfter))
                return response
            case .pairLocked:
                // Same answer, and the same password-hashing time, as a wrong password (G03).
                _ = try services.passwords.authenticate(email: "", password: form["password"] ?? "")
                services.record("login.throttled", clientID: client.clientID, ip: request.clientIP, details: ["scope": "account"])
                services.metrics.recordLogin(result: "throttled")
                return failedPage
            case .allowed:
                break
            }
            switch try services.passwords.authenticate(email: email, password: form["password"] ?? "") {
            case .failure(let reason, let userID):
                try services.throttle.recordFailure(email: email, ip: request.clientIP)
                services.record("login.failed", userID: userID, clientID: client.clientID, ip: request.clientIP, details: ["reason": reason])
                services.metrics.recordLogin(result: "failure")
                return failedPage
            case .success(let user):
                try services.throttle.recordSuccess(email: email, ip: request.clientIP)
                let device = ClientInfo.label(authorization.auth0Client) ?? request.headers["User-Agent"].map { String($0.prefix(200)) }
                let (session, setCookie) = try sessions.start(userID: user.userID, deviceName: device, ip: request.clientIP)
                try services.transactions.attachSession(idHash: transaction.idHash, sessionID: session.sessionID)
                services.record("login.succeeded", userID: user.userID, clientID: client.clientID, ip: request.clientIP)
                services.metrics.recordLogin(result: "success")
                var response = HTTPResponse(status: 303)
                response.headers.set("Location", services.issuer.endpoint("authorize/resume?tx=" + transactionID))
                response.headers.set("Cache-Control", "no-store")
                response.headers.add("Set-Cookie", setCookie)
                return response
            }
        } catch {
            services.logger.error("login_failed", ["request_id": .string(request.requestID), "error": .string(String(describing: error))])
            return ErrorPage.render(title: "Something went wrong", message: "Sign-in is temporarily unavailable. Try again shortly.",
                                    status: 503, issuer: services.issuer)
        }
    }
}

/// `GET /authorize/resume?tx=…`: after a successful login, issues the code for the stored request.
struct ResumeEndpoint: Sendable {
    let services: Services

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let query = Dictionary(request.queryItems ?? [], uniquingKeysWith: { first, _ in first })
        do {
            guard let (_, transaction) = try LoginTransactionLookup.find(request, transactionID: query["tx"], services: services),
                  let sessionID = transaction.sessionID,
                  let authorization = AuthorizationRequest(parameters: transaction.parameters),
                  let session = try services.sessions.find(sessionID: sessionID), session.isLive(at: services.clock.now),
                  let user = try services.users.find(userID: session.userID),
                  try services.transactions.consume(idHash: transaction.idHash) else {
                return LoginTransactionLookup.expiredPage(services)
            }
            let code = try CodeIssuer.issue(request: authorization, session: session, user: user, clock: services.clock, codes: services.codes)
            let target = authorization.target(issuer: services.issuer.url)
            return AuthorizationRedirect.respond(target, parameters: target.successParameters(code: code), services: services,
                                                 setCookies: [services.cookies.delete(.transaction)])
        } catch {
            services.logger.error("resume_failed", ["request_id": .string(request.requestID), "error": .string(String(describing: error))])
            return ErrorPage.render(title: "Something went wrong", message: "Sign-in is temporarily unavailable. Try again shortly.",
                                    status: 503, issuer: services.issuer)
        }
    }
}

/// Finds the login transaction named by both the browser's cookie and the form or URL:
/// the two must agree, so a transaction id alone (e.g. from a leaked URL) is useless.
enum LoginTransactionLookup {
    static func find(_ request: HTTPRequest, transactionID: String?, services: Services) throws -> (String, LoginTransaction)? {
        guard let cookie = services.cookies.value(.transaction, in: request.headers), let transactionID,
              !cookie.isEmpty, ConstantTime.equals(Array(cookie.utf8), Array(transactionID.utf8)) else { return nil }
        guard let transaction = try services.transactions.find(idHash: SecretDigest.hash(transactionID), at: services.clock.now) else {
            return nil
        }
        return (transactionID, transaction)
    }

    /// Shown when the form or continuation arrives after the transaction expired or was used (G14).
    static func expiredPage(_ services: Services) -> HTTPResponse {
        ErrorPage.render(title: "Sign-in expired",
                         message: "This sign-in took too long or was already completed. Go back to the app and start again.",
                         status: 400, issuer: services.issuer)
    }
}
