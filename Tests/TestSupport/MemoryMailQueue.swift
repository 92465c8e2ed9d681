import Foundation
import Model

/// A mail queue that keeps what it is given, for tests that read the code a message carries.
/// (The daemon's queue is SQLite with a real sender; see the email tests for those.)
public final class MemoryMailQueue: MailQueue, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [MailMessage] = []

    public init() {}

    public func enqueue(_ message: MailMessage, at time: Date) throws(StorageError) {
        lock.lock()
        stored.append(message)
        lock.unlock()
    }

    public var messages: [MailMessage] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    /// The newest message to `address`.
    public func last(to address: String) -> MailMessage? {
        messages.last { $0.to.lowercased() == address.lowercased() }
    }
}
