import HTTP
import OIDC
import Settings

/// Every HTML error page a person can see, with its status and wording, in one place. Callers pick
/// a case; the precise reason goes to the log, never to the page.
enum UserFacingError: Sendable, Equatable {
    /// The request or form could not be read.
    case unreadable(message: String)
    /// `/authorize` refused before a redirect URI could be trusted (unknown client, unregistered callback).
    case signInRefused(status: Int, message: String)
    /// The login transaction is gone: expired, completed, or never this browser's (negative-tests G14).
    case signInExpired
    /// A form whose CSRF token is not this transaction's (negative-tests G01).
    case formRefused(message: String)
    /// Too many sign-in attempts from this address.
    case tooManyAttempts(retryAfter: Int)
    /// Sign-out refused (an unregistered `post_logout_redirect_uri`, a bad `id_token_hint`).
    case signOutRefused(message: String)
    /// The sign-out form was answered "stay signed in".
    case stillSignedIn
    /// The service failed: 503 when it is temporarily unavailable (storage busy, disk full), else 500.
    case serviceFailed(temporarily: Bool, activity: Activity, requestID: String)

    enum Activity: String, Sendable {
        case signIn = "Sign-in"
        case signOut = "Sign-out"
    }

    /// The page for a failure the protocol core reported while serving a page.
    static func failure(_ error: OAuthError, activity: Activity, requestID: String) -> UserFacingError {
        .serviceFailed(temporarily: error.code == .temporarilyUnavailable, activity: activity, requestID: requestID)
    }

    var status: Int {
        switch self {
        case .unreadable, .signInExpired, .signOutRefused: 400
        case .signInRefused(let status, _): status
        case .formRefused: 403
        case .tooManyAttempts: 429
        case .stillSignedIn: 200
        case .serviceFailed(let temporarily, _, _): temporarily ? 503 : 500
        }
    }

    var title: String {
        switch self {
        case .unreadable: "Invalid request"
        case .signInRefused: "Sign-in unavailable"
        case .signInExpired: "Sign-in expired"
        case .formRefused: "Request refused"
        case .tooManyAttempts: "Too many attempts"
        case .signOutRefused: "Sign-out not possible"
        case .stillSignedIn: "Still signed in"
        case .serviceFailed: "Something went wrong"
        }
    }

    var message: String {
        switch self {
        case .unreadable(let message), .signInRefused(_, let message), .formRefused(let message), .signOutRefused(let message):
            message
        case .signInExpired:
            "This sign-in took too long or was already completed. Go back to the app and start again."
        case .tooManyAttempts:
            "Too many sign-in attempts from your network. Try again later."
        case .stillSignedIn:
            "You have not been signed out."
        case .serviceFailed(let temporarily, let activity, let requestID):
            temporarily
                ? "\(activity.rawValue) is temporarily unavailable. Try again shortly. (Request \(requestID))"
                : "\(activity.rawValue) failed on our side. Try again later. (Request \(requestID))"
        }
    }

    func response(issuer: Issuer) -> HTTPResponse {
        var response = ErrorPage.render(title: title, message: message, status: status, issuer: issuer)
        switch self {
        case .tooManyAttempts(let retryAfter): response.headers.set("Retry-After", String(retryAfter))
        case .serviceFailed(true, _, _): response.headers.set("Retry-After", "1")
        default: break
        }
        return response
    }
}
