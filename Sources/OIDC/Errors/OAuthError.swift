/// An OAuth 2.0 / OpenID Connect error, rendered in one place by the web layer.
///
/// `description` is safe to show the client; `detail` is for the log only.
public struct OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case unauthorizedClient = "unauthorized_client"
        case unsupportedGrantType = "unsupported_grant_type"
        case invalidScope = "invalid_scope"
        case accessDenied = "access_denied"
        case unsupportedResponseType = "unsupported_response_type"
        case serverError = "server_error"
        case temporarilyUnavailable = "temporarily_unavailable"
        case loginRequired = "login_required"
        case interactionRequired = "interaction_required"
        case consentRequired = "consent_required"
        case requestNotSupported = "request_not_supported"
        case requestURINotSupported = "request_uri_not_supported"
        case invalidToken = "invalid_token"
        case tooManyRequests = "too_many_requests"
        /// Auth0's code for a throttled login, which Auth0.swift recognises.
        case tooManyAttempts = "too_many_attempts"
        /// Auth0's code for a blocked user ("user is blocked"), Auth0.swift's `isRuleError`.
        case unauthorized = "unauthorized"
        /// Auth0's code for a sign-in before the address is confirmed (Auth0.swift `isVerificationRequired`).
        case requiresVerification = "requires_verification"
    }

    public let code: Code
    /// Client-safe text for `error_description`.
    public let description: String
    /// Log-only detail (never sent to the client).
    public let detail: String?

    public init(_ code: Code, _ description: String, detail: String? = nil) {
        self.code = code
        self.description = description
        self.detail = detail
    }

    /// The HTTP status for this error at the token, revocation and userinfo endpoints (RFC 6749 §5.2, RFC 6750 §3.1).
    public var httpStatus: Int {
        switch code {
        case .invalidClient, .invalidToken, .unauthorized: 401
        case .accessDenied: 403
        case .tooManyRequests, .tooManyAttempts: 429
        case .serverError: 500
        case .temporarilyUnavailable: 503
        default: 400
        }
    }
}
