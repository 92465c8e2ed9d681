import Synchronization

/// Decides at accept whether a connection may stay: `maxConnections` in all, and `maxPerClient` from one
/// peer IP address (0 turns that off). Shared by every loop. Unix-socket peers carry no address and are
/// counted only in the total; behind a proxy the peer is the proxy, so the per-client cap applies to it.
final class ConnectionAdmission: Sendable {
    enum Refusal: String, Sendable {
        case maxConnections = "max_connections"
        case maxPerClient = "max_connections_per_client"
    }

    let maxConnections: Int
    let maxPerClient: Int
    /// Open connections, across all loops.
    let count = Atomic<Int>(0)
    private let perClient = Mutex<[String: Int]>([:])

    init(maxConnections: Int, maxPerClient: Int) {
        self.maxConnections = maxConnections
        self.maxPerClient = maxPerClient
    }

    /// Counts the connection in, or says why it must be closed at once.
    func admit(_ peer: PeerAddress) -> Refusal? {
        if count.wrappingAdd(1, ordering: .relaxed).newValue > maxConnections {
            count.wrappingSubtract(1, ordering: .relaxed)
            return .maxConnections
        }
        guard let client = clientKey(peer) else { return nil }
        let admitted = perClient.withLock { clients -> Bool in
            let open = clients[client, default: 0]
            guard open < maxPerClient else { return false }
            clients[client] = open + 1
            return true
        }
        if admitted { return nil }
        count.wrappingSubtract(1, ordering: .relaxed)
        return .maxPerClient
    }

    /// Counts a closed connection out.
    func release(_ peer: PeerAddress) {
        count.wrappingSubtract(1, ordering: .relaxed)
        guard let client = clientKey(peer) else { return }
        perClient.withLock { clients in
            guard let open = clients[client] else { return }
            clients[client] = open > 1 ? open - 1 : nil
        }
    }

    private func clientKey(_ peer: PeerAddress) -> String? {
        guard maxPerClient > 0, case .ip(let host, _) = peer else { return nil }
        return host
    }
}
