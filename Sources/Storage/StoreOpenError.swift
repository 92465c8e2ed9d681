import SQLite

/// Why the store could not start, phrased for the operator reading the log.
public enum StoreOpenError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, SQLiteError)
    case migration(path: String, MigrationError)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let error):
            // SQLiteError's message from Connection.init already says "cannot open <path>".
            error.message.hasPrefix("cannot open") ? error.message : "cannot open \(path): \(error.message)"
        case .migration(let path, let error):
            "database \(path): \(error)"
        }
    }
}
