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
