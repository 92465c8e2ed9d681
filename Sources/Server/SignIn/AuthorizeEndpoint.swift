import HTTP
import OIDC

/// `GET|POST /authorize`: parses the request, asks the sign-in flow, renders its step — an error
/// page (never a redirect to an unvalidated URI), an error redirect, the login form, or a code (SSO).
struct AuthorizeEndpoint: Sendable {
    let services: Services
    let flow: SignInFlow
    /// Native-to-web session transfer (README "Native to web"); nil: tokens are ignored.
    var transfer: SessionTransferRedeemer? = nil

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let pairs: [(String, String)]
        do {
            pairs = try RequestParameters.parse(request)
        } catch {
            services.logger.info("authorize_unreadable", ["request_id": .string(request.requestID), "error": .string(error.description)])
            return UserFacingError.unreadable(form: false).response(issuer: services.issuer, language: services.language(request),
                                                                    requestID: request.requestID)
        }
        let language = services.language(request, uiLocales: pairs.first { $0.0 == "ui_locales" }?.1)
        if request.method == "HEAD" { return head(pairs, language: language) }
        var context = RequestContext(request)
        defer { services.record(context) }
        do throws(OAuthError) {
            let outcome = try authorize(pairs, request, context: &context)
            let cookies = SessionTransferCookies.setCookies(outcome, cookies: services.cookies, issuer: services.issuer)
            switch outcome.step {
            case .errorPage(let status, let code, let logReason):
                let clientID = pairs.first { $0.0 == "client_id" }?.1
                services.logger.warning("authorize_refused", ["request_id": .string(request.requestID), "reason": .string(logReason),
                                                              "client_id": .string(clientID ?? ""), "code": .string(code)])
                return UserFacingError.signInRefused(status: status, code: code)
                    .response(issuer: services.issuer, language: language, requestID: request.requestID).adding(cookies: cookies)
            case .errorRedirect(let target, let error):
                services.logger.info("authorize_error", ["request_id": .string(request.requestID), "error": .string(error.code.rawValue),
                                                         "detail": .string(error.detail ?? error.description)])
                return AuthorizationRedirect.error(target, error, services: services, language: language, setCookies: cookies)
            case .showLogin(let screen, let reason):
                services.logger.debug("login_required", ["request_id": .string(request.requestID), "reason": .string(reason.rawValue)])
                return LoginPage.render(screen, issuer: services.issuer, cookies: services.cookies, texts: services.pageText)
                    .adding(cookies: cookies)
            case .issued(let target, let code):
                return AuthorizationRedirect.respond(target, parameters: target.successParameters(code: code), services: services,
                                                     language: language, setCookies: cookies)
            case .upstream(let url, let transactionCookie, let stateCookie, let maxAge):
                var response = HTTPResponse(status: 302)
                response.headers.set("Location", LocationValue.encode(url))
                response.headers.set("Cache-Control", "no-store")
                for cookie in services.cookies.setTransaction(transactionCookie, maxAge: maxAge) { response.headers.add("Set-Cookie", cookie) }
                response.headers.add("Set-Cookie", services.cookies.set(.upstream, value: stateCookie, maxAge: maxAge))
                return response.adding(cookies: cookies)
            }
        } catch {
            services.logger.error("authorize_failed", ["request_id": .string(request.requestID), "error": .string(error.detail ?? error.description)])
            return UserFacingError.failure(error, activity: .signIn)
                .response(issuer: services.issuer, language: language, requestID: request.requestID)
        }
    }
}

extension AuthorizeEndpoint {
    /// The sign-in flow's step, through the session transfer when one is configured.
    func authorize(_ pairs: [(String, String)], _ request: HTTPRequest,
                   context: inout RequestContext) throws(OAuthError) -> SessionTransferRedeemer.Outcome {
        let sessionCookie = services.cookies.value(.session, in: request.headers)
        guard let transfer else { return .init(step: try flow.authorize(pairs, sessionCookie: sessionCookie, context: &context)) }
        return try transfer.authorize(pairs, sessionCookie: sessionCookie, transferCookie: SessionTransferCookies.value(in: request.headers),
                                      context: &context)
    }

    /// HEAD changes nothing: the status GET would answer for the request's own errors, else 200 with no body.
    func head(_ pairs: [(String, String)], language: PageText.Language) -> HTTPResponse {
        switch flow.inspect(pairs) {
        case .errorPage(let status, let code, _)?:
            return UserFacingError.signInRefused(status: status, code: code).response(issuer: services.issuer, language: language)
        case .errorRedirect(let target, let error)?:
            return AuthorizationRedirect.error(target, error, services: services, language: language)
        case .showLogin?, .issued?, .upstream?, nil:
            var response = HTTPResponse(status: 200)
            response.headers.set("Content-Type", "text/html; charset=utf-8")
            SecurityHeaders.noStore(&response)
            return response
        }
    }
}

extension HTTPRequest {
    /// The client's address for audit events, sessions and throttling: the peer, or the
    /// address a trusted proxy forwarded (never a header from an untrusted peer).
    var clientIP: String { clientAddress }
}
