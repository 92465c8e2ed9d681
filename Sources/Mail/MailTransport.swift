import Synchronization

/// Hands a composed message to a mail server or program. Blocking: callers run it on a
/// thread of their own (the background sender, `idp-admin email test`), never on a request.
public protocol MailTransport: Sendable {
    /// Delivers `message` (RFC 5322 bytes, CRLF) from the envelope sender to the recipients.
    func send(_ message: [UInt8], from: String, to recipients: [String]) throws(DeliveryError)
}

/// Lets the owner of a transport abort a delivery in progress (shutdown); checked while a
/// connection waits or transfers, so a stop does not wait out a slow server's timeout.
public final class DeliveryCancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)
    public init() {}
    public func cancel() { cancelled.store(true, ordering: .releasing) }
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
}

/// Why a delivery failed, precisely enough for an operator to act on it.
public struct DeliveryError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Nothing listens there, or the host is unreachable or unknown.
        case connection
        /// The TLS handshake or certificate check failed, or the server offers no STARTTLS where TLS is required.
        case tls
        /// The server refused the user name or password.
        case authentication
        /// The server refused the recipient (or the sender) address.
        case rejected
        /// The server took longer than the transport's timeout.
        case timeout
        /// The sendmail command could not run or exited with a failure.
        case command
        /// Stopped by `DeliveryCancellation`.
        case cancelled
        /// Anything else the server or library reported.
        case other
    }

    public let kind: Kind
    /// What went wrong, for logs and `idp-admin`; never holds a password or message content.
    public let detail: String
    /// The server's reply code, when it sent one.
    public let replyCode: Int?

    public init(_ kind: Kind, _ detail: String, replyCode: Int? = nil) {
        self.kind = kind
        self.detail = detail
        self.replyCode = replyCode
    }

    /// Retrying cannot help: the server refused for good (a 5xx reply, RFC 5321 §4.2.1) or the
    /// message itself is at fault. Connection, TLS, authentication and 4xx failures are retried:
    /// they are usually an outage or a configuration an operator is about to fix.
    public var isPermanent: Bool {
        guard kind == .rejected, let replyCode else { return false }
        return replyCode >= 500
    }

    public var description: String {
        let label: String = switch kind {
        case .connection: "cannot connect"
        case .tls: "TLS failed"
        case .authentication: "authentication failed"
        case .rejected: "refused by the server"
        case .timeout: "timed out"
        case .command: "sendmail command failed"
        case .cancelled: "cancelled"
        case .other: "delivery failed"
        }
        return "\(label): \(detail)"
    }
}
