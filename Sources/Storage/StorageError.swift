import SQLite

/// What callers of the stores need to know about a storage failure, without SQLite details.
public enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A unique key (e.g. a client id or user email) is taken.
    case alreadyExists(String)
    case notFound(String)
    /// The change contradicts the current state (e.g. deleting an active signing key).
    case conflict(String)
    /// The database cannot serve now: busy beyond the timeout, disk full, read-only, cannot open.
    /// /readyz reports this; requests get 503.
    case unavailable(String)
    /// Anything else: a bug or corruption.
    case `internal`(String)

    public var description: String {
        switch self {
        case .alreadyExists(let what): "already exists: \(what)"
        case .notFound(let what): "not found: \(what)"
        case .conflict(let why): why
        case .unavailable(let why): "storage unavailable: \(why)"
        case .internal(let why): "storage error: \(why)"
        }
    }
}

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

    /// Maps any error thrown by the SQLite layer or a store; StorageError passes through.
    public static func map(_ error: any Error) -> StorageError {
        switch error {
        case let storage as StorageError: storage
        case let sqlite as SQLiteError: StorageError(sqlite)
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
