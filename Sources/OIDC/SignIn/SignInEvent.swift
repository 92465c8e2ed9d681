/// A sign-in outcome the core reports and the web layer records: an audit event and, for logins,
/// the `gatehouse_logins_total` metric. The core decides what happened; it never writes either.
public struct SignInEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case loginSucceeded = "login.succeeded"
        case loginFailed = "login.failed"
        case loginThrottled = "login.throttled"
        case loginCancelled = "login.cancelled"
        /// A sign-in through an upstream connection failed (README "Upstream connections").
        case upstreamFailed = "login.upstream_failed"
        case authorizeRefused = "authorize.refused"
        case authorizeSSO = "authorize.sso"
        case signedUp = "user.signed_up"
        case emailVerified = "user.email_verified"
        case passwordResetRequested = "user.password_reset_requested"
        case passwordReset = "user.password_reset"
        case codeSent = "code.sent"
        case codeRejected = "code.rejected"
        case accountRequestThrottled = "account.throttled"
        /// A rotated refresh token came back; its family was revoked (RFC 9700 §4.14.2).
        case refreshTokenReused = "refresh_token.reused"
        /// Native to web (README "Native to web"): a session transfer token was issued, turned into a
        /// browser session, or not honoured (`reason` in the details).
        case sessionTransferIssued = "session_transfer.issued"
        case sessionTransferRedeemed = "session_transfer.redeemed"
        case sessionTransferRejected = "session_transfer.rejected"

        /// The login metric's `result` label, for the login kinds.
        public var loginResult: String? {
            switch self {
            case .loginSucceeded: "success"
            case .loginFailed: "failure"
            case .loginThrottled: "throttled"
            default: nil
            }
        }
    }

    public var kind: Kind
    public var userID: String?
    public var clientID: String?
    public var details: [String: String]

    public init(_ kind: Kind, userID: String? = nil, clientID: String? = nil, details: [String: String] = [:]) {
        self.kind = kind
        self.userID = userID
        self.clientID = clientID
        self.details = details
    }
}
