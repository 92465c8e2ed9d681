import Foundation
import Model

/// In-memory `RefreshTokenStore` with the SQLite store's semantics: rotation decided and applied
/// under one lock, all or nothing. Shares `MemoryDatabase` so `MemoryGrantStore.revoke` (which
/// marks `database.refreshTokens`) revokes these tokens too, and session counts see the grants.
public final class MemoryRefreshTokenStore: RefreshTokenStore, @unchecked Sendable {
    public let database: MemoryDatabase
    private let lock = NSLock()
    private var tokens: [String: RefreshToken] = [:]
    /// One-row families (migration 0017) by grant: the live token, at the family's current generation.
    private var families: [String: RefreshToken] = [:]
    /// Fault injection (K03): the next successor insert inside `rotate` throws after the presented
    /// token was marked rotated; the store must undo that.
    public var failNextSuccessorInsert = false

    public init(database: MemoryDatabase = MemoryDatabase()) { self.database = database }

    public func insert(_ token: RefreshToken) throws(StorageError) {
        try withLock { () throws(StorageError) in try insertLocked(token) }
        database.recordRefreshActivity(grantID: token.grantID, at: token.issuedAt)
    }

    public func find(_ key: RefreshTokenKey) throws(StorageError) -> RefreshToken? {
        withLock { current(key) }
    }

    /// A rotation is its session's activity (`MemoryDatabase.refreshActivity`), as a family row's is.
    public func rotate(_ key: RefreshTokenKey, successor: RefreshToken, judge: any RefreshReuseJudge,
                       at time: Date) throws(StorageError) -> RefreshRotation {
        let outcome = try rotateLocked(key, successor: successor, judge: judge, at: time)
        if case .rotated(let presented, _) = outcome { database.recordRefreshActivity(grantID: presented.grantID, at: time) }
        return outcome
    }

    private func rotateLocked(_ key: RefreshTokenKey, successor: RefreshToken, judge: any RefreshReuseJudge,
                              at time: Date) throws(StorageError) -> RefreshRotation {
        try withLock { () throws(StorageError) -> RefreshRotation in
            if key.inFamilyRow { return try rotateFamilyLocked(key, successor: successor, judge: judge, at: time) }
            guard let presented = current(key) else { return .unknown }
            let tokenHash = key.tokenHash
            guard presented.isUnused else {
                let outcome = judge.outcome(presented: presented, storedSuccessor: storedSuccessor(of: presented),
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

    /// The token `presented` was rotated to: in its one-row family, or by digest.
    private func storedSuccessor(of presented: RefreshToken) -> RefreshToken? {
        guard let hash = presented.successorHash else { return nil }
        if let generation = presented.generation, hash == RefreshTokenKey.name(grantID: presented.grantID, generation: generation + 1) {
            return familyToken(at: .init(grantID: presented.grantID, generation: generation + 1))
        }
        return current(hash)
    }

    /// As `SQLiteRefreshFamilies.advance`: the presented generation must be the current one and the family live.
    private func rotateFamilyLocked(_ key: RefreshTokenKey, successor: RefreshToken, judge: any RefreshReuseJudge,
                                    at time: Date) throws(StorageError) -> RefreshRotation {
        guard let presented = current(key), let position = key.position else { return .unknown }
        if presented.isUnused {
            families[position.grantID]?.generation = position.generation + 1
            families[position.grantID]?.issuedAt = time
            families[position.grantID]?.lastUsedAt = time
            let next = RefreshTokenKey.family(grantID: position.grantID, generation: position.generation + 1)
            return .rotated(presented: current(key)!, successor: current(next)!)
        }
        let stored = current(RefreshTokenKey.family(grantID: position.grantID, generation: position.generation + 1))
        let outcome = judge.outcome(presented: presented, storedSuccessor: stored, expectedSuccessorHash: successor.tokenHash, at: time)
        if case .reused = outcome { try revokeFamilyLocked(grantID: presented.grantID, at: time) }
        return outcome
    }

    public func revokeFamily(grantID: String, at time: Date) throws(StorageError) {
        try withLock { () throws(StorageError) in
            for (hash, token) in tokens where token.grantID == grantID && token.revokedAt == nil {
                tokens[hash]?.revokedAt = time
            }
            if families[grantID] != nil { try revokeFamilyLocked(grantID: grantID, at: time) }
        }
    }

    /// Reuse: the grant and every token of it, under the rotation's lock (one step, as SQLite's one transaction).
    private func revokeFamilyLocked(grantID: String, at time: Date) throws(StorageError) {
        for (hash, token) in tokens where token.grantID == grantID && token.revokedAt == nil {
            tokens[hash]?.revokedAt = time
        }
        if families[grantID]?.revokedAt == nil { families[grantID]?.revokedAt = time }
        try database.locked { () throws(StorageError) in
            if database.grants[grantID]?.revokedAt == nil {
                database.grants[grantID]?.revokedAt = time
                database.grants[grantID]?.revokeReason = "refresh token reused"
            }
        }
    }

    public func liveCountsBySession(userID: String, at time: Date) throws(StorageError) -> [String: Int] {
        let all = withLock {
            tokens.keys.compactMap(current) + families.values.compactMap { family in
                current(RefreshTokenKey.family(grantID: family.grantID, generation: family.generation ?? 0))
            }
        }
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
        if key.inFamilyRow, let position = key.position { return familyToken(at: position) }
        guard let token = current(key.tokenHash), key.matches(token) else { return nil }
        return token
    }

    /// A one-row family seen from `position`'s generation, as `SQLiteRefreshFamilies.token` reads it.
    private func familyToken(at position: RefreshTokenKey.Position) -> RefreshToken? {
        guard var token = families[position.grantID], let current = token.generation,
              (0...current).contains(position.generation) else { return nil }
        if token.revokedAt == nil, let revoked = database.refreshTokenRevokedAt(hash: RefreshTokenKey.tombstone(grantID: position.grantID)) {
            token.revokedAt = revoked
        }
        token.tokenHash = RefreshTokenKey.name(grantID: position.grantID, generation: position.generation)
        token.generation = position.generation
        if position.generation < current {
            token.rotatedAt = token.lastUsedAt
            token.successorHash = RefreshTokenKey.name(grantID: position.grantID, generation: position.generation + 1)
        }
        return token
    }

    private func current(_ hash: String) -> RefreshToken? {
        guard var token = tokens[hash] else { return nil }
        if token.revokedAt == nil, let revoked = database.refreshTokenRevokedAt(hash: hash) { token.revokedAt = revoked }
        return token
    }

    private func insertLocked(_ token: RefreshToken) throws(StorageError) {
        if token.familySalt != nil {
            guard families[token.grantID] == nil else { throw .alreadyExists("refresh-token family") }
            var live = token
            live.lastUsedAt = token.issuedAt
            live.rotatedAt = nil
            live.successorHash = nil
            families[token.grantID] = live
            database.addRefreshToken(hash: RefreshTokenKey.tombstone(grantID: token.grantID), grantID: token.grantID)
            return
        }
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
