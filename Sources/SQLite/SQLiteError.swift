import CSQLite

/// An error reported by SQLite, with the primary and extended result codes and the SQL that failed.
///
/// The SQL text is kept for diagnosis; bound values are never included because they may be secrets.
public struct SQLiteError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The primary result code (`extendedCode & 0xff`), e.g. `SQLITE_CONSTRAINT`.
    public let code: Int32
    /// The extended result code, e.g. `ResultCode.constraintUnique`.
    public let extendedCode: Int32
    /// SQLite's message (`sqlite3_errmsg`) or ours for wrapper-level misuse.
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.code = extendedCode & 0xff
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    public var description: String {
        var text = "SQLite error \(code)"
        if extendedCode != code { text += " (extended \(extendedCode))" }
        text += ": \(message)"
        if let sql { text += " — in: \(sql)" }
        return text
    }

    /// The lock could not be taken within the busy timeout (`SQLITE_BUSY` or `SQLITE_LOCKED`).
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    public var isConstraint: Bool { code == SQLITE_CONSTRAINT }
    /// A UNIQUE or PRIMARY KEY constraint failed: the row already exists.
    public var isUniqueConstraint: Bool {
        extendedCode == ResultCode.constraintUnique || extendedCode == ResultCode.constraintPrimaryKey
    }
    /// The disk (or `max_page_count`) is full.
    public var isFull: Bool { code == SQLITE_FULL }
    public var isReadOnly: Bool { code == SQLITE_READONLY }
    public var isCantOpen: Bool { code == SQLITE_CANTOPEN }
    public var isIOError: Bool { code == SQLITE_IOERR }
}

extension SQLiteError {
    /// Builds the error for `resultCode` from the connection's current message.
    init(resultCode: Int32, db: OpaquePointer?, sql: String? = nil) {
        let message: String
        if let db, let cMessage = sqlite3_errmsg(db) {
            message = String(cString: cMessage)
        } else {
            message = String(cString: sqlite3_errstr(resultCode))
        }
        self.init(extendedCode: resultCode, message: message, sql: sql)
    }

    /// Misuse of the wrapper itself (closed database, multi-statement SQL where one is expected).
    static func misuse(_ message: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(extendedCode: SQLITE_MISUSE, message: message, sql: sql)
    }
}
