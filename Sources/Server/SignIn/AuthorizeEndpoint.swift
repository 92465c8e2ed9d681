import Crypto
import FoundationEssentials
import HTTP
import Model
import OIDC

/// `GET|POST /authorize`: runs the protocol core's decision and renders it — an error page
/// (never a redirect to an unvalidated URI), an error redirect, the login form, or a code (SSO).
struct AuthorizeEndpoint: Sendable {
    let services: Services
    let authorizer: Authorizer
    let sessions: SessionManager

    /// How long a user has to complete the login form.
    static let transactionLifetime: TimeInterval = 15 * 60

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let pairs: [(String, String)]
        do {
            pairs = try RequestParameters.parse(request)
        } catch {
            return ErrorPage.render(title: "Invalid request", message: error.description, status: 400, issuer: services.issuer)
        }
        do {
            let session = try sessions.current(request)
            let user = try session.flatMap { try services.users.find(userID: $0.userID) }
            // The audience rule (unknown APIs refused) lives in OIDC/AudienceCheck.swift.
            switch AudienceCheck.screen(authorizer.decide(pairs, session: session, user: user), apis: services.apis, issuer: services.issuer.url) {
            case .errorPage(let status, let message, let logReason):
                let clientID = pairs.first { $0.0 == "client_id" }?.1
                services.logger.warning("authorize_refused", ["request_id": .string(request.requestID), "reason": .string(logReason),
                                                              "client_id": .string(clientID ?? "")])
                services.record("authorize.refused", clientID: clientID, ip: request.clientIP, details: ["reason": logReason])
                return ErrorPage.render(title: "Sign-in unavailable", message: message, status: status, issuer: services.issuer)
            case .errorRedirect(let target, let error):
                services.logger.info("authorize_error", ["request_id": .string(request.requestID), "error": .string(error.code.rawValue),
                                                         "detail": .string(error.detail ?? error.description)])
                return AuthorizationRedirect.error(target, error, services: services)
            case .login(let authorization, let reason):
                return try startLogin(authorization, reason: reason, request: request)
            case .issueCode(let authorization, let session):
                guard let user else { return try startLogin(authorization, reason: .noSession, request: request) }
                let code = try CodeIssuer.issue(request: authorization, session: session, user: user, clock: services.clock, codes: services.codes)
                services.record("authorize.sso", userID: user.userID, clientID: authorization.clientID, ip: request.clientIP)
                return AuthorizationRedirect.respond(authorization.target(issuer: services.issuer.url),
                                                     parameters: authorization.target(issuer: services.issuer.url).successParameters(code: code),
                                                     services: services)
            }
        } catch let error as OAuthError {
            return serviceFailure(request, error.detail ?? error.description)
        } catch {
            return serviceFailure(request, String(describing: error))
        }
    }

    /// Keeps the validated request server-side and shows the login form.
    private func startLogin(_ authorization: AuthorizationRequest, reason: LoginReason, request: HTTPRequest) throws -> HTTPResponse {
        guard let client = try services.clients.find(clientID: authorization.clientID) else {
            return ErrorPage.render(title: "Sign-in unavailable", message: "The application is unknown.", status: 400, issuer: services.issuer)
        }
        let transactionID = Random.token(bytes: 32)
        let csrf = CSRFToken.make()
        let now = services.clock.now
        try services.transactions.create(LoginTransaction(
            idHash: SecretDigest.hash(transactionID), clientID: client.clientID, parameters: authorization.parameters(),
            csrfHash: csrf.hash, createdAt: now, expiresAt: now.addingTimeInterval(Self.transactionLifetime)))
        services.logger.debug("login_required", ["request_id": .string(request.requestID), "reason": .string(reason.rawValue)])
        var response = LoginPage.render(appName: client.name, issuer: services.issuer, transactionID: transactionID,
                                        csrfToken: csrf.token, email: authorization.loginHint, redirectURI: authorization.redirectURI)
        response.headers.add("Set-Cookie", services.cookies.set(.transaction, value: transactionID, maxAge: Int(Self.transactionLifetime)))
        return response
    }

    private func serviceFailure(_ request: HTTPRequest, _ detail: String) -> HTTPResponse {
        services.logger.error("authorize_failed", ["request_id": .string(request.requestID), "error": .string(detail)])
        return ErrorPage.render(title: "Something went wrong",
                                message: "The sign-in service is temporarily unavailable. Try again shortly. (Request \(request.requestID))",
                                status: 503, issuer: services.issuer)
    }
}

extension HTTPRequest {
    /// The client's address for audit events, sessions and throttling: the peer, or the
    /// address a trusted proxy forwarded (never a header from an untrusted peer).
    var clientIP: String { clientAddress }
}
