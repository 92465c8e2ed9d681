import Settings

/// Delivers over SMTP with libcurl (the issue: a well-kept library rather than our own mail
/// client). TLS is never optional on a network: `smtp://` must upgrade with STARTTLS (RFC 3207)
/// unless the host is loopback, where it still upgrades whenever the server offers it;
/// `smtps://` is TLS from the first byte (RFC 8314 §3.3). Certificates are always verified.
public struct SMTPTransport: MailTransport {
    public struct Configuration: Sendable {
        public var url: SMTPURL
        public var username: String?
        /// Given to libcurl only; never logged or placed in an error.
        public var password: String?
        /// A PEM CA bundle instead of the system's.
        public var caFile: String?
        public var connectTimeout: Duration = .seconds(10)
        /// The whole delivery, connection included.
        public var timeout: Duration = .seconds(60)

        public init(url: SMTPURL, username: String? = nil, password: String? = nil, caFile: String? = nil) {
            self.url = url
            self.username = username
            self.password = password
            self.caFile = caFile
        }
    }

    /// How TLS is used for a connection.
    enum TLSPolicy: Equatable {
        /// `smtps://`: TLS before any SMTP.
        case implicit
        /// STARTTLS or nothing is sent (a non-loopback `smtp://` host).
        case required
        /// STARTTLS when offered, else clear text (loopback only).
        case whenOffered
    }

    public let configuration: Configuration
    let cancellation: DeliveryCancellation?

    public init(_ configuration: Configuration, cancellation: DeliveryCancellation? = nil) {
        self.configuration = configuration
        self.cancellation = cancellation
    }

    var tlsPolicy: TLSPolicy {
        if configuration.url.implicitTLS { return .implicit }
        return configuration.url.isLoopback ? .whenOffered : .required
    }

    public func send(_ message: [UInt8], from: String, to recipients: [String]) throws(DeliveryError) {
        guard MailAddress.isValidAddress(from), !recipients.isEmpty, recipients.allSatisfy(MailAddress.isValidAddress) else {
            throw DeliveryError(.rejected, "invalid envelope address")
        }
        try perform(message, from: from, to: recipients)
    }
}
