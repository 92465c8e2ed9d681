import Foundation
import Model

/// In-memory `RefreshTokenStore` with the SQLite store's semantics: rotation decided and applied
/// under one lock, all or nothing. Shares `MemoryDatabase` so `MemoryGrantStore.revoke` (which
/// marks `database.refreshTokens`) revokes these tokens too, and session counts see the grants.
public final class MemoryRefreshTokenStore: RefreshTokenStore, @unchecked Sendable {
    public let database: MemoryDatabase
    private let lock = NSLock()
    private var tokens: [String: RefreshToken] = [:]
    /// Fault injection (K03): the next successor insert inside `rotate` throws after the presented
    /// token was marked rotated; the store must undo that.
    public var failNextSuccessorInsert = false

    public init(database: MemoryDatabase = MemoryDatabase()) { self.database = database }

    public func insert(_ token: RefreshToken) throws(StorageError) {
        try withLock { () throws(StorageError) in try insertLocked(token) }
    }

    public func find(_ key: RefreshTokenKey) throws(StorageError) -> RefreshToken? {
        withLock { current(key) }
    }

    public func rotate(_ key: RefreshTokenKey, successor: RefreshToken, judge: any RefreshReuseJudge,
                       at time: Date) throws(StorageError) -> RefreshRotation {
        try withLock { () throws(StorageError) -> RefreshRotation in
            guard let presented = current(key) else { return .unknown }
            let tokenHash = key.tokenHash
            guard presented.isUnused else {
                let outcome = judge.outcome(presented: presented, storedSuccessor: presented.successorHash.flatMap(current),
                                            expectedSuccessorHash: successor.tokenHash, at: time)
                if case .reused = outcome { try revokeFamilyLocked(grantID: presented.grantID, at: time) }
                return outcome
            }
            let before = tokens[tokenHash]
            tokens[tokenHash]?.rotatedAt = time
            tokens[tokenHash]?.lastUsedAt = time
            tokens[tokenHash]?.successorHash = successor.tokenHash
            do throws(StorageError) {
                if failNextSuccessorInsert {
                    failNextSuccessorInsert = false
                    throw StorageError.unavailable("injected failure after consuming the presented token")
                }
                try insertLocked(successor)
            } catch {
                tokens[tokenHash] = before  // Roll back: all or nothing.
                throw error
            }
            return .rotated(presented: current(tokenHash)!, successor: successor)
        }
    }

    public func revokeFamily(grantID: String, at time: Date) throws(StorageError) {
        withLock {
            for (hash, token) in tokens where token.grantID == grantID && token.revokedAt == nil {
                tokens[hash]?.revokedAt = time
            }
        }
    }

    /// Reuse: the grant and every token of it, under the rotation's lock (one step, as SQLite's one transaction).
    private func revokeFamilyLocked(grantID: String, at time: Date) throws(StorageError) {
        for (hash, token) in tokens where token.grantID == grantID && token.revokedAt == nil {
            tokens[hash]?.revokedAt = time
        }
        try database.locked { () throws(StorageError) in
            if database.grants[grantID]?.revokedAt == nil {
                database.grants[grantID]?.revokedAt = time
                database.grants[grantID]?.revokeReason = "refresh token reused"
            }
        }
    }

    public func liveCountsBySession(userID: String, at time: Date) throws(StorageError) -> [String: Int] {
        let all = withLock { tokens.keys.compactMap(current) }
        let grants = (try? database.locked { database.grants }) ?? [:]
        var counts: [String: Int] = [:]
        for token in all where token.isUnused && time < token.expiresAt {
            guard let grant = grants[token.grantID], grant.userID == userID, grant.revokedAt == nil,
                  let sessionID = grant.sessionID else { continue }
            counts[sessionID, default: 0] += 1
        }
        return counts
    }

    /// The token with any revocation `MemoryGrantStore.revoke` recorded in the shared database.
    /// The token the key names (digest, and place when the key has one), as the SQLite store finds it.
    private func current(_ key: RefreshTokenKey) -> RefreshToken? {
        guard let token = current(key.tokenHash), key.matches(token) else { return nil }
        return token
    }

    private func current(_ hash: String) -> RefreshToken? {
        guard var token = tokens[hash] else { return nil }
        if token.revokedAt == nil, let revoked = database.refreshTokenRevokedAt(hash: hash) { token.revokedAt = revoked }
        return token
    }

    private func insertLocked(_ token: RefreshToken) throws(StorageError) {
        guard tokens[token.tokenHash] == nil else { throw .alreadyExists("refresh token") }
        var token = token
        // As the SQLite store numbers it: one past the family's newest.
        if token.generation == nil {
            token.generation = tokens.values.filter { $0.grantID == token.grantID }.compactMap(\.generation).max().map { $0 + 1 } ?? 0
        }
        tokens[token.tokenHash] = token
        database.addRefreshToken(hash: token.tokenHash, grantID: token.grantID)
    }

    private func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
