import FoundationEssentials
import Model
import SQLite

/// A successful login in one `BEGIN IMMEDIATE` transaction: the user's login count and time (and a
/// rehash), the throttle reset, the new session and the login transaction it is attached to. A
/// crash or failure at any step leaves none of them (no session without its login, no half-done login).
public struct SQLiteSignInStore: SignInStore {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func completeLogin(_ completion: LoginCompletion) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                try SQLiteUserStore.recordLogin(userID: completion.userID, at: completion.time,
                                                rehashedPassword: completion.rehashedPassword, on: connection)
                for key in completion.clearedThrottleKeys { try SQLiteLoginThrottleStore.clear(key: key, on: connection) }
                if let session = completion.session {
                    try SQLiteSessionStore.insert(session, into: connection)
                    if var transaction = completion.transaction {
                        transaction.sessionID = session.sessionID
                        try SQLiteLoginTransactionStore.insert(transaction, into: connection)
                    }
                }
            }
        }
    }
}
