/// A refusal of the account endpoints in Auth0's database-connection shape `{code, description,
/// name}` (`../shared/docs/auth0-compat.md` §0: Auth0.swift reads `code` and `description`, and
/// recognises `invalid_password` with `name` `PasswordStrengthError`, `password_leaked`,
/// `invalid_signup`, `unauthorized`, `too_many_attempts`).
public struct AccountError: Error, Sendable, Equatable {
    public var code: String
    public var description: String
    public var name: String?
    public var status: Int
    /// Seconds before a rate-limited caller may try again.
    public var retryAfter: Int?
    /// What operators see in the log and audit; never shown to the caller.
    public var detail: String?

    public init(code: String, description: String, name: String? = nil, status: Int = 400, retryAfter: Int? = nil,
                detail: String? = nil) {
        self.code = code
        self.description = description
        self.name = name
        self.status = status
        self.retryAfter = retryAfter
        self.detail = detail
    }

    public static func weakPassword(_ unmet: [PasswordPolicy.Rule]) -> AccountError {
        AccountError(code: "invalid_password", description: PasswordPolicy.describe(unmet), name: "PasswordStrengthError")
    }

    public static let leakedPassword = AccountError(
        code: "password_leaked", description: "This password is on a list of leaked or common passwords. Choose another one.",
        name: "PasswordLeakedError")

    public static let reusedPassword = AccountError(
        code: "invalid_password", description: "This password was used recently. Choose one you have not used before.",
        name: "PasswordHistoryError")

    /// An address already registered: said no more precisely than this.
    public static let invalidSignup = AccountError(code: "invalid_signup", description: "Invalid sign up", name: "BadRequestError")

    public static func badConnection(_ expected: String) -> AccountError {
        AccountError(code: "bad.connection", description: "The connection does not exist. Use \(expected).", name: "BadRequestError")
    }

    public static let signupDisabled = AccountError(code: "unauthorized", description: "Sign up is not allowed for this application.",
                                                    name: "UnauthorizedError", status: 403)

    public static func tooManyRequests(retryAfter: Int) -> AccountError {
        AccountError(code: "too_many_attempts", description: "Too many requests. Try again later.", name: "TooManyRequestsError",
                     status: 429, retryAfter: retryAfter)
    }

    public static func invalidRequest(_ description: String) -> AccountError {
        AccountError(code: "invalid_request", description: description, name: "BadRequestError")
    }

    public static let deliveryUnavailable = AccountError(
        code: "unauthorized", description: "Email delivery is not configured for this tenant.", name: "UnauthorizedError", status: 403)

    /// A wrong, used, expired or exhausted code: one answer for all (Auth0's passwordless text).
    public static let wrongCode = AccountError(code: "invalid_grant", description: "Wrong email or verification code.",
                                               name: "InvalidGrantError", status: 403)
}
