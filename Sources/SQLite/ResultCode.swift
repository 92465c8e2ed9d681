import CSQLite

/// Extended result codes. SQLite defines them as `(SQLITE_X | (n<<8))` macros, which Swift
/// does not import, so they are spelled out here from sqlite3.h.
enum ResultCode {
    static let constraintPrimaryKey: Int32 = SQLITE_CONSTRAINT | (6 << 8)
    static let constraintUnique: Int32 = SQLITE_CONSTRAINT | (8 << 8)
}
