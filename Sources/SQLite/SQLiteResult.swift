import CSQLite

/// Primary result codes, re-exported so layers above can match on them without importing CSQLite.
public enum SQLiteResult {
    public static let busy = SQLITE_BUSY
    public static let locked = SQLITE_LOCKED
    public static let full = SQLITE_FULL
    public static let ioError = SQLITE_IOERR
    public static let readOnly = SQLITE_READONLY
    public static let cantOpen = SQLITE_CANTOPEN
    public static let constraint = SQLITE_CONSTRAINT
    public static let error = SQLITE_ERROR
    public static let misuse = SQLITE_MISUSE
    /// Extended: a UNIQUE index rejected the row.
    public static let constraintUnique = ResultCode.constraintUnique
    /// Extended: a PRIMARY KEY rejected the row.
    public static let constraintPrimaryKey = ResultCode.constraintPrimaryKey
}
