import Foundation
import Model

/// In-memory `APIStore` with the SQLite store's semantics (unique id and identifier, grant upsert,
/// deleting an API drops its grants). `knownClients` stands in for the clients table's foreign key:
/// nil accepts any client id.
public final class MemoryAPIStore: APIStore, @unchecked Sendable {
    private let lock = NSLock()
    private var apis: [String: API] = [:]
    private var grants: [String: ClientGrant] = [:]
    private var order = 0
    private var created: [String: Int] = [:]
    public var knownClients: Set<String>?

    public init(_ apis: [API] = [], knownClients: Set<String>? = nil) {
        self.knownClients = knownClients
        for api in apis { try? create(api) }
    }

    private func locked<T>(_ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    public func create(_ api: API) throws(StorageError) {
        try locked { () throws(StorageError) in
            guard apis[api.apiID] == nil, !apis.values.contains(where: { $0.identifier == api.identifier }) else {
                throw .alreadyExists("api \(api.apiID)")
            }
            apis[api.apiID] = api
            order += 1
            created[api.apiID] = order
        }
    }

    public func find(apiID: String) throws(StorageError) -> API? { try locked { apis[apiID] } }

    public func find(identifier: String) throws(StorageError) -> API? {
        try locked { apis.values.first { Array($0.identifier.utf8) == Array(identifier.utf8) } }
    }

    public func list() throws(StorageError) -> [API] {
        try locked { apis.values.sorted { ($0.createdAt, created[$0.apiID] ?? 0) < ($1.createdAt, created[$1.apiID] ?? 0) } }
    }

    public func update(_ api: API) throws(StorageError) {
        try locked { () throws(StorageError) in
            guard apis[api.apiID] != nil else { throw .notFound("api \(api.apiID)") }
            guard !apis.values.contains(where: { $0.identifier == api.identifier && $0.apiID != api.apiID }) else {
                throw .alreadyExists("identifier \(api.identifier)")
            }
            apis[api.apiID] = api
        }
    }

    public func delete(apiID: String) throws(StorageError) {
        try locked { () throws(StorageError) in
            guard apis.removeValue(forKey: apiID) != nil else { throw .notFound("api \(apiID)") }
            grants = grants.filter { $0.value.apiID != apiID }
        }
    }

    public func grant(_ grant: ClientGrant) throws(StorageError) {
        try locked { () throws(StorageError) in
            guard apis[grant.apiID] != nil else { throw .notFound("api \(grant.apiID)") }
            if let knownClients, !knownClients.contains(grant.clientID) { throw .notFound("client \(grant.clientID)") }
            let key = grant.clientID + "\u{0}" + grant.apiID
            var stored = grant
            if let existing = grants[key] { stored.createdAt = existing.createdAt }
            grants[key] = stored
        }
    }

    public func clientGrant(clientID: String, apiID: String) throws(StorageError) -> ClientGrant? {
        try locked { grants[clientID + "\u{0}" + apiID] }
    }

    public func clientGrants(clientID: String) throws(StorageError) -> [ClientGrant] {
        try locked { grants.values.filter { $0.clientID == clientID }.sorted { ($0.createdAt, $0.apiID) < ($1.createdAt, $1.apiID) } }
    }
}

/// In-memory `LifecycleLookup`: refresh tokens by hash, and grants by session from a closure.
public final class MemoryLifecycleLookup: LifecycleLookup, @unchecked Sendable {
    private let lock = NSLock()
    private var tokens: [String: RefreshToken] = [:]
    private let grantsOfSession: @Sendable (String) -> [Grant]

    public init(grantsOfSession: @escaping @Sendable (String) -> [Grant] = { _ in [] }) {
        self.grantsOfSession = grantsOfSession
    }

    /// Stores a refresh token under `hash` (SHA-256 hex of the token).
    public func add(hash: String, _ snapshot: RefreshToken) {
        lock.lock(); defer { lock.unlock() }
        tokens[hash] = snapshot
    }

    public func refreshToken(_ key: RefreshTokenKey) throws(StorageError) -> RefreshToken? {
        lock.lock(); defer { lock.unlock() }
        return tokens[key.tokenHash].flatMap { key.matches($0) ? $0 : nil }
    }

    public func liveGrants(sessionID: String) throws(StorageError) -> [Grant] {
        grantsOfSession(sessionID).filter { $0.revokedAt == nil }
    }
}
