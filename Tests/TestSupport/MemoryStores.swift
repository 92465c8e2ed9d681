import Foundation
import Model

// In-memory implementations of the Model store protocols with the SQLite stores' semantics
// (unique keys, cascades, atomic redemption), for tests of code built on the protocols.
// StorageTests/StoreConformanceTests runs the same behaviours against both.

/// The records every memory store shares, so deleting a client cascades as the foreign keys do.
public final class MemoryDatabase: @unchecked Sendable {
    private let lock = NSLock()
    var clients: [String: Client] = [:]
    var users: [String: User] = [:]
    var codes: [String: AuthorizationCode] = [:]
    var sessions: [String: Session] = [:]
    var grants: [String: Grant] = [:]
    /// Revoked `client_credentials` grants, which have no row, until their tokens' expiry.
    var revokedMachineGrants: [String: Date] = [:]
    var transactions: [String: LoginTransaction] = [:]
    /// Refresh tokens by hash: their grant and revocation time (no protocol owns them yet).
    var refreshTokens: [String: (grantID: String, revokedAt: Date?)] = [:]
    /// When each grant's refresh tokens were last issued or rotated (`MemoryRefreshTokenStore`
    /// writes it): a session's last activity, as the SQL stores read it from the grants' `refresh_*` columns.
    var refreshActivity: [String: Date] = [:]

    public init() {}

    func locked<T>(_ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// A refresh token of `grantID` was issued or rotated at `time`.
    func recordRefreshActivity(grantID: String, at time: Date) {
        lock.lock()
        defer { lock.unlock() }
        refreshActivity[grantID] = max(time, refreshActivity[grantID] ?? time)
    }

    /// `session` with its last activity: the latest refresh activity of its grants before it ended
    /// (`SQLiteSessionStore.select`). Called under the lock.
    func withRefreshActivity(_ session: Session) -> Session {
        let refreshed = grants.values.filter { $0.sessionID == session.sessionID }.compactMap { refreshActivity[$0.grantID] }.max()
        guard let refreshed else { return session }
        var derived = session
        derived.lastSeenAt = max(session.lastSeenAt, session.endedAt.map { min(refreshed, $0) } ?? refreshed)
        return derived
    }

    /// Records a refresh token of `grantID`, as the token endpoint would.
    public func addRefreshToken(hash: String, grantID: String) {
        lock.lock()
        defer { lock.unlock() }
        refreshTokens[hash] = (grantID, nil)
    }

    /// When the refresh token was revoked; nil when live or unknown.
    public func refreshTokenRevokedAt(hash: String) -> Date? {
        lock.lock()
        defer { lock.unlock() }
        return refreshTokens[hash]?.revokedAt
    }

    /// Whether the refresh token still exists (it goes with its grant).
    public func hasRefreshToken(hash: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return refreshTokens[hash] != nil
    }
}

public final class MemoryClientStore: ClientStore, @unchecked Sendable {
    public let database: MemoryDatabase
    public init(database: MemoryDatabase = MemoryDatabase()) { self.database = database }

    public func create(_ client: Client) throws(StorageError) {
        try database.locked { () throws(StorageError) in
            guard database.clients[client.clientID] == nil else { throw .alreadyExists("client \(client.clientID)") }
            database.clients[client.clientID] = client
        }
    }

    public func find(clientID: String) throws(StorageError) -> Client? {
        try database.locked { database.clients[clientID] }
    }

    /// Oldest first, as SQLite orders them.
    public func list() throws(StorageError) -> [Client] {
        try database.locked {
            database.clients.values.sorted { ($0.createdAt, $0.clientID) < ($1.createdAt, $1.clientID) }
        }
    }

    public func update(_ client: Client) throws(StorageError) {
        try database.locked { () throws(StorageError) in
            guard database.clients[client.clientID] != nil else { throw .notFound("client \(client.clientID)") }
            database.clients[client.clientID] = client
        }
    }

    public func delete(clientID: String) throws(StorageError) {
        try database.locked { () throws(StorageError) in
            guard database.clients.removeValue(forKey: clientID) != nil else { throw .notFound("client \(clientID)") }
            database.codes = database.codes.filter { $0.value.clientID != clientID }
            let grants = Set(database.grants.values.filter { $0.clientID == clientID }.map(\.grantID))
            database.grants = database.grants.filter { !grants.contains($0.key) }
            database.refreshTokens = database.refreshTokens.filter { !grants.contains($0.value.grantID) }
            database.transactions = database.transactions.filter { $0.value.clientID != clientID }
        }
    }
}

public final class MemoryUserStore: UserStore, @unchecked Sendable {
    public let database: MemoryDatabase
    public init(database: MemoryDatabase = MemoryDatabase()) { self.database = database }

    public func create(_ user: User) throws(StorageError) {
        try database.locked { () throws(StorageError) in
            guard database.users[user.userID] == nil else { throw .alreadyExists("user \(user.userID)") }
            guard !database.users.values.contains(where: { $0.emailKey == user.emailKey }) else {
                throw .alreadyExists("user with email \(user.email)")
            }
            database.users[user.userID] = user
        }
    }

    public func find(userID: String) throws(StorageError) -> User? {
        try database.locked { database.users[userID] }
    }

    public func find(email: String) throws(StorageError) -> User? {
        try database.locked { database.users.values.first { $0.connection == nil && $0.emailKey == User.emailKey(email) } }
    }

    public func update(_ user: User) throws(StorageError) {
        try database.locked { () throws(StorageError) in
            guard database.users[user.userID] != nil else { throw .notFound("user \(user.userID)") }
            guard !database.users.values.contains(where: { $0.userID != user.userID && $0.emailKey == user.emailKey }) else {
                throw .alreadyExists("user with email \(user.email)")
            }
            database.users[user.userID] = user
        }
    }

    public func recordLogin(userID: String, at time: Date, rehashedPassword: String?) throws(StorageError) {
        try database.locked { () throws(StorageError) in
            guard var user = database.users[userID] else { throw .notFound("user \(userID)") }
            user.loginsCount += 1
            user.lastLoginAt = time
            if let rehashedPassword { user.passwordHash = rehashedPassword }
            database.users[userID] = user
        }
    }
}

public final class MemoryAuthorizationCodeStore: AuthorizationCodeStore, @unchecked Sendable {
    public let database: MemoryDatabase
    public init(database: MemoryDatabase = MemoryDatabase()) { self.database = database }

    public func insert(_ code: AuthorizationCode) throws(StorageError) {
        try database.locked { () throws(StorageError) in
            guard database.codes[code.codeHash] == nil else { throw .alreadyExists("authorization code") }
            database.codes[code.codeHash] = code
        }
    }

    /// Check and mark under one lock, so exactly one concurrent caller sees `.redeemed`.
    public func redeem(codeHash: String, at time: Date) throws(StorageError) -> CodeRedemption {
        try database.locked {
            guard var code = database.codes[codeHash] else { return .unknown }
            guard code.usedAt == nil else { return .replayed(code) }
            code.usedAt = time
            database.codes[codeHash] = code
            return .redeemed(code)
        }
    }

    public func attachGrant(codeHash: String, grantID: String) throws(StorageError) {
        try database.locked { () throws(StorageError) in
            guard database.codes[codeHash] != nil else { throw .notFound("authorization code") }
            database.codes[codeHash]?.grantID = grantID
        }
    }
}

public final class MemorySessionStore: SessionStore, @unchecked Sendable {
    public let database: MemoryDatabase
    public init(database: MemoryDatabase = MemoryDatabase()) { self.database = database }

    public func create(_ session: Session) throws(StorageError) {
        try database.locked { () throws(StorageError) in
            guard database.sessions[session.sessionID] == nil,
                  !database.sessions.values.contains(where: { $0.cookieHash == session.cookieHash }) else {
                throw .alreadyExists("session \(session.sessionID)")
            }
            database.sessions[session.sessionID] = session
        }
    }

    public func find(cookieHash: String) throws(StorageError) -> Session? {
        try database.locked { database.sessions.values.first { $0.cookieHash == cookieHash }.map(database.withRefreshActivity) }
    }

    public func find(sessionID: String) throws(StorageError) -> Session? {
        try database.locked { database.sessions[sessionID].map(database.withRefreshActivity) }
    }

    public func list(userID: String) throws(StorageError) -> [Session] {
        try database.locked {
            database.sessions.values.filter { $0.userID == userID }
                .sorted { ($0.createdAt, $0.sessionID) > ($1.createdAt, $1.sessionID) }.map(database.withRefreshActivity)
        }
    }

    public func end(sessionID: String, at time: Date) throws(StorageError) {
        try database.locked { () throws(StorageError) in
            guard let session = database.sessions[sessionID] else { throw .notFound("session \(sessionID)") }
            if session.endedAt == nil { database.sessions[sessionID]?.endedAt = time }
        }
    }
}

public final class MemoryGrantStore: GrantStore, @unchecked Sendable {
    public let database: MemoryDatabase
    public init(database: MemoryDatabase = MemoryDatabase()) { self.database = database }

    public func create(_ grant: Grant) throws(StorageError) {
        try database.locked { () throws(StorageError) in
            guard database.grants[grant.grantID] == nil else { throw .alreadyExists("grant \(grant.grantID)") }
            database.grants[grant.grantID] = grant
        }
    }

    public func find(grantID: String) throws(StorageError) -> Grant? {
        try database.locked { database.grants[grantID] }
    }

    public func revoke(grantID: String, at time: Date, reason: String) throws(StorageError) {
        try database.locked { () throws(StorageError) in
            guard let grant = database.grants[grantID] else { throw .notFound("grant \(grantID)") }
            if grant.revokedAt == nil {
                database.grants[grantID]?.revokedAt = time
                database.grants[grantID]?.revokeReason = reason
            }
            for (hash, token) in database.refreshTokens where token.grantID == grantID && token.revokedAt == nil {
                database.refreshTokens[hash] = (grantID, time)
            }
        }
    }

    public func revokeMachineGrant(grantID: String, until expiresAt: Date) throws(StorageError) -> Bool {
        try database.locked {
            guard database.revokedMachineGrants[grantID] == nil else { return false }
            database.revokedMachineGrants[grantID] = expiresAt
            return true
        }
    }

    public func isMachineGrantRevoked(grantID: String) throws(StorageError) -> Bool {
        try database.locked { database.revokedMachineGrants[grantID] != nil }
    }
}

public final class MemoryLoginTransactionStore: LoginTransactionStore, @unchecked Sendable {
    public let database: MemoryDatabase
    public init(database: MemoryDatabase = MemoryDatabase()) { self.database = database }

    public func create(_ transaction: LoginTransaction) throws(StorageError) {
        try database.locked { () throws(StorageError) in
            guard database.transactions[transaction.idHash] == nil else { throw .alreadyExists("login transaction") }
            database.transactions[transaction.idHash] = transaction
        }
    }

    public func find(idHash: String, at time: Date) throws(StorageError) -> LoginTransaction? {
        try database.locked { database.transactions[idHash].flatMap { time < $0.expiresAt ? $0 : nil } }
    }

    public func consume(idHash: String) throws(StorageError) -> Bool {
        try database.locked {
            guard database.transactions[idHash]?.sessionID != nil else { return false }
            database.transactions[idHash]?.sessionID = nil
            return true
        }
    }
}

/// Login throttle states in memory.
public final class MemoryLoginThrottleStore: LoginThrottleStore, @unchecked Sendable {
    private let lock = NSLock()
    private var states: [String: ThrottleState] = [:]

    public init() {}

    public func state(key: String) throws(StorageError) -> ThrottleState? {
        lock.lock()
        defer { lock.unlock() }
        return states[key]
    }

    public func update(key: String, _ update: @Sendable (ThrottleState?) -> ThrottleState) throws(StorageError) -> ThrottleState {
        lock.lock()
        defer { lock.unlock() }
        let next = update(states[key])
        states[key] = next
        return next
    }

    public func clear(key: String) throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        states[key] = nil
    }
}
