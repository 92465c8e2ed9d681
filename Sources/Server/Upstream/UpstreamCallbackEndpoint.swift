import HTTP
import OIDC

/// `GET|POST {issuer}login/callback`: an upstream provider's answer — in the query, or a form
/// post (Apple's `response_mode=form_post`) — judged by the sign-in flow against the upstream
/// cookie. Signed in: the session cookie and 303 to the continuation, as after the login form.
/// The upstream cookie is dropped whatever happens: an answer is good once.
struct UpstreamCallbackEndpoint: Sendable {
    let services: Services
    let flow: SignInFlow

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let language = services.language(request)
        guard let fields = Self.fields(request) else {
            return UserFacingError.unreadable(form: request.method == "POST").response(issuer: services.issuer, language: language,
                                                                                        requestID: request.requestID)
        }
        var context = RequestContext(request)
        defer { services.record(context) }
        var response: HTTPResponse
        do throws(OAuthError) {
            switch try flow.upstreamCallback(fields, stateCookie: services.cookies.value(.upstream, in: request.headers), context: &context) {
            case .expired:
                response = UserFacingError.signInExpired.response(issuer: services.issuer, language: language, requestID: request.requestID)
            case .failed(let status, let reason):
                services.logger.warning("upstream_sign_in_failed", ["request_id": .string(request.requestID), "reason": .string(reason)])
                response = UserFacingError.upstreamFailed(status: status).response(issuer: services.issuer, language: language,
                                                                                   requestID: request.requestID)
            case .blocked:
                response = UserFacingError.userBlocked.response(issuer: services.issuer, language: language, requestID: request.requestID)
            case .cancelled(let target, let error):
                response = AuthorizationRedirect.error(target, error, services: services,
                                                       language: services.language(request, uiLocales: target.uiLocales),
                                                       setCookies: services.cookies.deleteTransaction())
            case .signedIn(let resumeURL, let cookie, let maxAge):
                response = HTTPResponse(status: 303)
                response.headers.set("Location", resumeURL)
                response.headers.set("Cache-Control", "no-store")
                response.headers.add("Set-Cookie", services.cookies.set(.session, value: cookie, maxAge: maxAge))
            }
        } catch {
            services.logger.error("upstream_callback_error", ["request_id": .string(request.requestID),
                                                              "error": .string(error.detail ?? error.description)])
            response = UserFacingError.failure(error, activity: .signIn).response(issuer: services.issuer, language: language,
                                                                                 requestID: request.requestID)
        }
        response.headers.add("Set-Cookie", services.cookies.delete(.upstream))
        return response
    }

    /// The answer's fields, first value of each: the query of a GET, the form of a POST.
    static func fields(_ request: HTTPRequest) -> [String: String]? {
        let pairs: [(String, String)]
        if request.method == "POST" {
            guard let text = String(validating: request.body, as: UTF8.self), let decoded = try? FormCodec.decode(text) else { return nil }
            pairs = decoded
        } else {
            pairs = request.queryItems ?? []
        }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }
}
