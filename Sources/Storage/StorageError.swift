import Model
import PostgreSQL
import SQLite

extension StorageError {
    /// The single mapping from SQLite's result codes to storage outcomes.
    public init(_ error: SQLiteError) {
        if error.isUniqueConstraint {
            self = .alreadyExists(error.message)
            return
        }
        switch error.code {
        case SQLiteResult.busy, SQLiteResult.locked, SQLiteResult.full, SQLiteResult.ioError,
             SQLiteResult.readOnly, SQLiteResult.cantOpen:
            self = .unavailable(error.description)
        default:
            self = .internal(error.description)
        }
    }

    /// The same mapping for PostgreSQL's SQLSTATEs: a lost connection, a timeout or a rolled-back
    /// transaction is "unavailable" (503, try again), as SQLite's busy and I/O errors are.
    public init(_ error: PostgresError) {
        if error.isUniqueViolation {
            self = .alreadyExists(error.message)
        } else if error.isRetryable {
            self = .unavailable(error.description)
        } else {
            self = .internal(error.description)
        }
    }

    /// Maps any error thrown by the SQLite layer or a store; StorageError passes through.
    public static func map(_ error: any Error) -> StorageError {
        switch error {
        case let storage as StorageError: storage
        case let sqlite as SQLiteError: StorageError(sqlite)
        case let postgres as PostgresError: StorageError(postgres)
        default: .internal(String(describing: error))
        }
    }
}

/// Runs `body`, converting whatever it throws to `StorageError`.
func mapStorageErrors<T>(_ body: () throws -> T) throws(StorageError) -> T {
    do {
        return try body()
    } catch {
        throw StorageError.map(error)
    }
}
