import Settings

/// Builds the transport and templates `EmailDelivery` describes, for the daemon's sender and
/// for `idp-admin email test` alike.
public enum MailSetup {
    /// The configured transport. Reads the SMTP password (environment or file) now.
    public static func transport(for delivery: EmailDelivery, cancellation: DeliveryCancellation? = nil) throws(ConfigurationError) -> any MailTransport {
        switch delivery.transport {
        case .smtp(let url, let username, _, _, let caFile):
            let configuration = SMTPTransport.Configuration(url: url, username: username, password: try delivery.smtpPassword(), caFile: caFile)
            return SMTPTransport(configuration, cancellation: cancellation)
        case .sendmail(let command):
            return SendmailTransport(command: command, cancellation: cancellation)
        }
    }

    public static func templates(for delivery: EmailDelivery) -> MailTemplates {
        MailTemplates(overrideDirectory: delivery.templatesDirectory)
    }

    /// The From mailbox; `SettingsLoader` checked it already, so this fails only on a rule the
    /// two parsers disagree on (reported, never a crash).
    public static func sender(for delivery: EmailDelivery) throws(MessageError) -> MailAddress {
        try MailAddress.parse(delivery.from)
    }
}
