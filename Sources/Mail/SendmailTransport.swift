/// Delivers through a local program (`sendmail_command`, e.g. `msmtp -t` or `/usr/sbin/sendmail -t`):
/// the message on its standard input, success only on exit status 0. The program is started
/// directly (posix_spawn, no shell), so nothing in a message or address is ever interpreted;
/// the recipients come from the message's own To header (`-t`).
public struct SendmailTransport: MailTransport {
    /// The program and its arguments.
    public let command: [String]
    public var timeout: Duration = .seconds(60)
    let cancellation: DeliveryCancellation?

    public init(command: [String], cancellation: DeliveryCancellation? = nil) {
        self.command = command
        self.cancellation = cancellation
    }

    public func send(_ message: [UInt8], from: String, to recipients: [String]) throws(DeliveryError) {
        guard !command.isEmpty else { throw DeliveryError(.command, "no sendmail_command") }
        let result = try ChildProcess.run(command, input: message, timeout: timeout, cancellation: cancellation)
        guard result.status == 0 else {
            let output = result.standardError.trimmingSpaces()
            let shown = output.isEmpty ? "" : ": " + String(output.prefix(300))
            throw DeliveryError(.command, "\(command[0]) \(result.signal.map { "was killed by signal \($0)" } ?? "exited with status \(result.status)")\(shown)")
        }
    }
}
