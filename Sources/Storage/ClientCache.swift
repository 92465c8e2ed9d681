import Model
import SQLite

/// Applications as last loaded, tagged with the `clients` change counter they were read under
/// (migration 0004). Every token request looks its client up; while the counter is unchanged the
/// cached value is exact, whichever process (idp or idp-admin) changed what.
final class ClientCache: @unchecked Sendable {
    private struct Entries {
        var counter: Int64 = -1
        var clients: [String: Client] = [:]
    }

    /// Plenty for real deployments; beyond it the cache starts over rather than grow without bound.
    static let capacity = 1024
    // A pthread mutex (`Locked`): every token request looks up here, and `Mutex` spins before it sleeps.
    private let entries = Locked(Entries())

    /// The cached client, if it was loaded under `counter`.
    func client(_ clientID: String, counter: Int64) -> Client? {
        entries.withLock { $0.counter == counter ? $0.clients[clientID] : nil }
    }

    /// Remembers `client` as read under `counter`; a newer counter drops everything older.
    func store(_ client: Client, counter: Int64) {
        entries.withLock { entries in
            if entries.counter != counter || entries.clients.count >= Self.capacity {
                guard counter >= entries.counter else { return }  // A slower reader with an older snapshot.
                entries = Entries(counter: counter)
            }
            entries.clients[client.clientID] = client
        }
    }
}
