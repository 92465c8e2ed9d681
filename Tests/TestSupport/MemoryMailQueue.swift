import FoundationEssentials
import Model
import Synchronization

/// A `MailQueue` that keeps what was enqueued in memory, for unit tests of the code that sends
/// mail (the account flows): read `messages` to find the code a flow sent.
public final class MemoryMailQueue: MailQueue {
    private let state = Mutex<[(message: MailMessage, time: Date)]>([])
    /// When set, `enqueue` throws it (a storage outage).
    public let failure = Mutex<StorageError?>(nil)

    public init() {}

    public func enqueue(_ message: MailMessage, at time: Date) throws(StorageError) {
        if let failure = failure.withLock({ $0 }) { throw failure }
        state.withLock { $0.append((message, time)) }
    }

    /// Everything enqueued, oldest first.
    public var messages: [MailMessage] { state.withLock { $0.map(\.message) } }

    /// The newest message to `address`, if any.
    public func last(to address: String) -> MailMessage? { state.withLock { $0.last { $0.message.to.lowercased() == address.lowercased() }?.message } }
}
