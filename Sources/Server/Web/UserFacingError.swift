import HTTP
import OIDC
import Settings

/// Every HTML error page a person can see, with its status, its error code and its texts (the
/// `page_error.<code>.*` keys of `Config/locales`), in one place. The page shows a message for
/// the user, the code and the request id to quote; the precise reason goes to the log only.
enum UserFacingError: Sendable, Equatable {
    /// The request or form could not be read.
    case unreadable(form: Bool)
    /// `/authorize` refused before a redirect URI could be trusted; `code` is the core's
    /// (`unknown_application`, `callback_not_allowed`, `web_origin_not_allowed`, `invalid_request`, …).
    case signInRefused(status: Int, code: String)
    /// The login transaction is gone: expired, completed, or never this browser's (negative-tests G14).
    case signInExpired
    /// A form whose CSRF token is not this transaction's (negative-tests G01), or a stale sign-out form.
    case formRefused(signOut: Bool)
    /// Too many sign-in attempts from this address.
    case tooManyAttempts(retryAfter: Int)
    /// Sign-out refused (an unregistered `post_logout_redirect_uri`, a bad `id_token_hint`); `code` is `LogoutPolicy`'s.
    case signOutRefused(code: String)
    /// The sign-out form was answered "stay signed in".
    case stillSignedIn
    /// A sign-in through an upstream provider failed: its answer was not this browser's (400) or the
    /// provider failed or was refused (502).
    case upstreamFailed(status: Int)
    /// The user is blocked (an upstream sign-in of a blocked user).
    case userBlocked
    /// The service failed: 503 when it is temporarily unavailable (storage busy, disk full), else 500.
    case serviceFailed(temporarily: Bool, activity: Activity)

    enum Activity: String, Sendable {
        case signIn = "sign_in"
        case signOut = "sign_out"
    }

    /// The page for a failure the protocol core reported while serving a page.
    static func failure(_ error: OAuthError, activity: Activity) -> UserFacingError {
        .serviceFailed(temporarily: error.code == .temporarilyUnavailable, activity: activity)
    }

    /// Codes the catalogue words; any other code from the core is shown with the generic texts.
    static let signInCodes: Set<String> = ["invalid_request", "unknown_application", "callback_not_allowed", "web_origin_not_allowed",
                                           "temporarily_unavailable", "server_error"]
    static let signOutCodes: Set<String> = ["invalid_logout_request", "logout_url_not_allowed"]

    var status: Int {
        switch self {
        case .unreadable, .signInExpired, .signOutRefused: 400
        case .signInRefused(let status, _): status
        case .formRefused, .userBlocked: 403
        case .upstreamFailed(let status): status
        case .tooManyAttempts: 429
        case .stillSignedIn: 200
        case .serviceFailed(let temporarily, _): temporarily ? 503 : 500
        }
    }

    /// The code shown on the page (and the catalogue key's middle part).
    var code: String {
        switch self {
        case .unreadable(let form): form ? "unreadable_form" : "unreadable_request"
        case .signInRefused(_, let code): Self.signInCodes.contains(code) ? code : "invalid_request"
        case .signInExpired: "sign_in_expired"
        case .formRefused(let signOut): signOut ? "sign_out_form_refused" : "form_refused"
        case .tooManyAttempts: "too_many_attempts"
        case .upstreamFailed: "upstream_failed"
        case .userBlocked: "user_blocked"
        case .signOutRefused(let code): Self.signOutCodes.contains(code) ? code : "invalid_logout_request"
        case .stillSignedIn: "still_signed_in"
        case .serviceFailed(let temporarily, let activity): "\(activity.rawValue)_\(temporarily ? "unavailable" : "failed")"
        }
    }

    /// Whether the page is a failure with a reference to quote (staying signed in is not).
    var isFailure: Bool { self != .stillSignedIn }

    /// The page in `language`; `requestID` is shown with the code so support can find the log line.
    func response(issuer: Issuer, language t: PageText.Language = PageText.shipped.language([]), requestID: String? = nil) -> HTTPResponse {
        var response = ErrorPage.render(title: t("page_error.\(code).title"), message: t("page_error.\(code).message"),
                                        reference: isFailure ? ErrorPage.Reference(code: code, requestID: requestID) : nil,
                                        status: status, issuer: issuer, language: t)
        switch self {
        case .tooManyAttempts(let retryAfter): response.headers.set("Retry-After", String(retryAfter))
        case .serviceFailed(true, _): response.headers.set("Retry-After", "1")
        default: break
        }
        return response
    }
}
