import HTTP
import OIDC

extension Services {
    /// The language of a page answering `request`: the sign-in's or this request's `ui_locales`
    /// first, then the browser's `Accept-Language` (`LocalePreference`), else English.
    func language(_ request: HTTPRequest, uiLocales: String? = nil) -> PageText.Language {
        let asked = uiLocales ?? request.queryItems?.first { $0.0 == "ui_locales" }?.1
        return pageText.language(LocalePreference.ordered(uiLocales: asked, acceptLanguage: request.headers["Accept-Language"]))
    }
}
