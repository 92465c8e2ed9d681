import FoundationEssentials

/// The messages Gatehouse sends; each is a template under `Config/templates/` (README "Email").
public enum MailTemplate: String, Sendable, CaseIterable {
    /// A code that confirms the address after signup.
    case verifyEmail = "verify_email"
    /// A reset code, and a link that works in any browser once.
    case resetPassword = "reset_password"
    /// A one-time sign-in code (passwordless).
    case passwordlessCode = "passwordless_code"
    /// `idp-admin email test`.
    case test
}

/// One message to send: the template, its recipient, the locale it is written in (`en`, `ja`, …;
/// an unknown locale falls back to English) and the values its placeholders take (`code`,
/// `app_name`, `expires_minutes`, `link`, …). The values may hold secrets (codes, links): a
/// queue keeps them sealed at rest and drops them once the message is sent.
public struct MailMessage: Sendable, Equatable {
    public var to: String
    public var template: MailTemplate
    public var locale: String
    public var values: [String: String]

    public init(to: String, template: MailTemplate, locale: String = "en", values: [String: String] = [:]) {
        self.to = to
        self.template = template
        self.locale = locale
        self.values = values
    }
}

/// Where requests hand their messages: a durable queue that a background sender drains with
/// retries, so no request waits on a mail server and an outage or a restart loses nothing.
public protocol MailQueue: Sendable {
    /// Stores the message for delivery; returns at once.
    func enqueue(_ message: MailMessage, at time: Date) throws(StorageError)
}
