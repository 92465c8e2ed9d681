import HTTP
import OIDC

/// Sends an authorization response (code or error) back to the validated redirect URI:
/// a 302 for `response_mode=query`, an auto-submitting page for `form_post`, a page that posts
/// to the opener or parent window for `web_message`.
enum AuthorizationRedirect {
    static func respond(_ target: RedirectTarget, parameters: [(String, String)], services: Services,
                        language: PageText.Language, setCookies: [String] = []) -> HTTPResponse {
        var response: HTTPResponse
        switch target.responseMode {
        case .formPost:
            response = FormPostPage.render(issuer: services.issuer, action: target.redirectURI, fields: parameters, language: language)
        case .webMessage:
            // The Authorizer refused any redirect URI without an allowed web origin, so there always is one here.
            guard let origin = target.messageOrigin else {
                return UserFacingError.signInRefused(status: 400, code: "web_origin_not_allowed").response(issuer: services.issuer, language: language)
            }
            response = WebMessagePage.render(issuer: services.issuer, origin: origin, fields: parameters, language: language)
        case .query:
            response = HTTPResponse(status: 302)
            response.headers.set("Location", LocationValue.encode(AuthorizationResponse.redirectURL(for: target, parameters: parameters)))
            response.headers.set("Cache-Control", "no-store")
            response.headers.set("Referrer-Policy", "no-referrer")
        }
        for cookie in setCookies { response.headers.add("Set-Cookie", cookie) }
        return response
    }

    static func error(_ target: RedirectTarget, _ error: OAuthError, services: Services, language: PageText.Language,
                      setCookies: [String] = []) -> HTTPResponse {
        respond(target, parameters: target.errorParameters(error), services: services, language: language, setCookies: setCookies)
    }
}
