import HTTP
import OIDC

/// `POST /login`: reads the form and asks the sign-in flow; renders the form again, a refusal, the
/// cancel redirect, or — signed in — a fresh session cookie and 303 to the internal continuation
/// (`authorize/resume`), never to a user-supplied URL (negative-tests G12).
struct LoginEndpoint: Sendable {
    let services: Services
    let flow: SignInFlow

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        // The form carries no ui_locales, so refusals before the transaction is read follow Accept-Language.
        let language = services.language(request)
        guard let text = String(validating: request.body, as: UTF8.self), let pairs = try? FormCodec.decode(text) else {
            return UserFacingError.unreadable(form: true).response(issuer: services.issuer, language: language, requestID: request.requestID)
        }
        let form = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
        var context = RequestContext(request)
        defer { services.record(context) }
        do throws(OAuthError) {
            switch try flow.submit(form, transactionCookie: services.cookies.transaction(in: request.headers), context: &context) {
            case .expired:
                return UserFacingError.signInExpired.response(issuer: services.issuer, language: language, requestID: request.requestID)
            case .forbidden:
                services.logger.warning("login_csrf_rejected", ["request_id": .string(request.requestID)])
                return UserFacingError.formRefused(signOut: false).response(issuer: services.issuer, language: language,
                                                                            requestID: request.requestID)
            case .unreadable:
                return UserFacingError.unreadable(form: true).response(issuer: services.issuer, language: language, requestID: request.requestID)
            case .showForm(let screen):
                return LoginPage.render(screen, issuer: services.issuer, cookies: services.cookies,
                                        status: screen.errorMessage == nil ? 200 : 401, texts: services.pageText)
            case .throttled(let retryAfter):
                return UserFacingError.tooManyAttempts(retryAfter: retryAfter).response(issuer: services.issuer, language: language,
                                                                                        requestID: request.requestID)
            case .cancelled(let target, let error):
                return AuthorizationRedirect.error(target, error, services: services, language: services.language(request, uiLocales: target.uiLocales),
                                                   setCookies: services.cookies.deleteTransaction())
            case .signedIn(let resumeURL, let cookie, let maxAge):
                var response = HTTPResponse(status: 303)
                response.headers.set("Location", resumeURL)
                response.headers.set("Cache-Control", "no-store")
                response.headers.add("Set-Cookie", services.cookies.set(.session, value: cookie, maxAge: maxAge))
                return response
            case .upstream(let url, let stateCookie, let maxAge):
                var response = HTTPResponse(status: 303)
                response.headers.set("Location", LocationValue.encode(url))
                response.headers.set("Cache-Control", "no-store")
                response.headers.add("Set-Cookie", services.cookies.set(.upstream, value: stateCookie, maxAge: maxAge))
                return response
            }
        } catch {
            services.logger.error("login_error", ["request_id": .string(request.requestID), "error": .string(error.detail ?? error.description)])
            return UserFacingError.failure(error, activity: .signIn).response(issuer: services.issuer, language: language, requestID: request.requestID)
        }
    }
}
