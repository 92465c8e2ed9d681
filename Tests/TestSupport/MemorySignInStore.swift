import Foundation
import Model

/// In-memory `SignInStore` with the SQLite store's semantics: every precondition is checked before
/// anything changes, so a failed commit leaves no part of the login behind. Counts its commits, so
/// tests can see that a login is exactly one.
public final class MemorySignInStore: SignInStore, @unchecked Sendable {
    public let database: MemoryDatabase
    public let throttle: MemoryLoginThrottleStore
    private let lock = NSLock()
    private var commits = 0

    public init(database: MemoryDatabase, throttle: MemoryLoginThrottleStore) {
        self.database = database
        self.throttle = throttle
    }

    /// How many logins were committed.
    public var commitCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return commits
    }

    public func completeLogin(_ completion: LoginCompletion) throws(StorageError) {
        try database.locked { () throws(StorageError) in
            guard var user = database.users[completion.userID] else { throw .notFound("user \(completion.userID)") }
            if let session = completion.session {
                guard database.sessions[session.sessionID] == nil,
                      !database.sessions.values.contains(where: { $0.cookieHash == session.cookieHash }) else {
                    throw .alreadyExists("session \(session.sessionID)")
                }
                if let transaction = completion.transaction, database.transactions[transaction.idHash] != nil {
                    throw .alreadyExists("login transaction")
                }
            }
            user.loginsCount += 1
            user.lastLoginAt = completion.time
            if let rehashed = completion.rehashedPassword { user.passwordHash = rehashed }
            database.users[completion.userID] = user
            if let session = completion.session {
                database.sessions[session.sessionID] = session
                if var transaction = completion.transaction {
                    transaction.sessionID = session.sessionID
                    database.transactions[transaction.idHash] = transaction
                }
            }
        }
        for key in completion.clearedThrottleKeys { try throttle.clear(key: key) }
        lock.lock()
        commits += 1
        lock.unlock()
    }
}
