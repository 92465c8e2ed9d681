/// An error from PostgreSQL or from reaching it, with its SQLSTATE and the SQL that failed.
///
/// Bound values are never included: they may be secrets. The password never appears either:
/// libpq's connection messages name the host and user, not the password.
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505`), or one of ours for failures with none (`08000`
    /// for a connection that could not be made or was lost).
    public let sqlState: String
    public let message: String
    public let sql: String?

    public init(sqlState: String, message: String, sql: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    public var description: String {
        if isLibraryUnavailable { return message }  // Not the server's: it names the library and package itself.
        var text = "PostgreSQL error \(sqlState): \(message)"
        if let sql { text += " — in: \(sql)" }
        return text
    }

    /// A UNIQUE or PRIMARY KEY constraint failed: the row already exists.
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// Any integrity constraint (class 23): foreign key, check, not null, unique.
    public var isConstraint: Bool { sqlState.hasPrefix("23") }
    /// Class 40 (serialization failure, deadlock): the transaction was rolled back and may simply be run again.
    public var isTransactionRollback: Bool { sqlState.hasPrefix("40") }
    /// The connection is gone or the server is going away (class 08, 57P01–57P03 shutdown,
    /// 53 insufficient resources): try again on a fresh connection, later.
    public var isConnectionFailure: Bool {
        sqlState.hasPrefix("08") || sqlState.hasPrefix("53") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }
    /// A statement ran past `statement_timeout` (57014, query canceled).
    public var isTimeout: Bool { sqlState == "57014" || sqlState == "55P03" }
    /// Worth retrying later: the request itself was fine.
    public var isRetryable: Bool { isTransactionRollback || isConnectionFailure || isTimeout }

    static func connection(_ message: String) -> PostgresError {
        PostgresError(sqlState: "08000", message: message)
    }

    /// libpq itself cannot be opened (`LibPQ.load`). SQLSTATE class 58 is "system error", outside
    /// PostgreSQL; not a connection failure, so a start does not wait for it to pass.
    static func libraryUnavailable(_ message: String) -> PostgresError {
        PostgresError(sqlState: libraryUnavailableState, message: message)
    }

    static let libraryUnavailableState = "58000"

    /// libpq could not be opened: the message names the library, the Debian package and why.
    public var isLibraryUnavailable: Bool { sqlState == Self.libraryUnavailableState && sql == nil }

    static func misuse(_ message: String, sql: String? = nil) -> PostgresError {
        PostgresError(sqlState: "XX000", message: message, sql: sql)
    }
}
