import HTTP
import OIDC

/// `GET /authorize/resume?tx=…`: after a successful login, the code for the stored request goes
/// back to its redirect URI and the transaction cookie is dropped.
struct ResumeEndpoint: Sendable {
    let services: Services
    let flow: SignInFlow

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let query = Dictionary(request.queryItems ?? [], uniquingKeysWith: { first, _ in first })
        let language = services.language(request)
        do throws(OAuthError) {
            switch try flow.resume(transactionID: query["tx"], transactionCookie: services.cookies.transaction(in: request.headers)) {
            case .expired:
                return UserFacingError.signInExpired.response(issuer: services.issuer, language: language, requestID: request.requestID)
            case .issued(let target, let code):
                return AuthorizationRedirect.respond(target, parameters: target.successParameters(code: code), services: services,
                                                     language: services.language(request, uiLocales: target.uiLocales),
                                                     setCookies: services.cookies.deleteTransaction())
            }
        } catch {
            services.logger.error("resume_failed", ["request_id": .string(request.requestID), "error": .string(error.detail ?? error.description)])
            return UserFacingError.failure(error, activity: .signIn).response(issuer: services.issuer, language: language, requestID: request.requestID)
        }
    }
}
