import Synchronization

/// Decides at accept whether a connection may stay: `maxConnections` in all. Shared by every loop.
final class ConnectionAdmission: Sendable {
    enum Refusal: String, Sendable {
        case maxConnections = "max_connections"
    }

    let maxConnections: Int
    /// Open connections, across all loops.
    let count = Atomic<Int>(0)

    init(maxConnections: Int) {
        self.maxConnections = maxConnections
    }

    /// Counts the connection in, or says why it must be closed at once.
    func admit(_ peer: PeerAddress) -> Refusal? {
        if count.wrappingAdd(1, ordering: .relaxed).newValue > maxConnections {
            count.wrappingSubtract(1, ordering: .relaxed)
            return .maxConnections
        }
        return nil
    }

    /// Counts a closed connection out.
    func release(_ peer: PeerAddress) {
        count.wrappingSubtract(1, ordering: .relaxed)
    }
}
