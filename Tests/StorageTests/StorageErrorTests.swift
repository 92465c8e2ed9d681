import Model
import Testing
import SQLite
import Storage

@Suite struct StorageErrorTests {
    /// The one mapping table from SQLite's (extended) result codes to storage outcomes.
    @Test(arguments: [
        (SQLiteResult.constraintUnique, "alreadyExists"),
        (SQLiteResult.constraintPrimaryKey, "alreadyExists"),
        (SQLiteResult.constraint | (3 << 8), "internal"),      // SQLITE_CONSTRAINT_FOREIGNKEY
        (SQLiteResult.constraint | (5 << 8), "internal"),      // SQLITE_CONSTRAINT_NOTNULL
        (SQLiteResult.busy, "unavailable"),
        (SQLiteResult.busy | (2 << 8), "unavailable"),         // SQLITE_BUSY_SNAPSHOT
        (SQLiteResult.locked, "unavailable"),
        (SQLiteResult.full, "unavailable"),
        (SQLiteResult.ioError, "unavailable"),
        (SQLiteResult.ioError | (4 << 8), "unavailable"),      // SQLITE_IOERR_FSYNC
        (SQLiteResult.ioError | (3 << 8), "unavailable"),      // SQLITE_IOERR_WRITE (a failing or full device)
        (SQLiteResult.ioError | (13 << 8), "unavailable"),     // SQLITE_IOERR_FSTAT
        (SQLiteResult.readOnly, "unavailable"),
        (SQLiteResult.readOnly | (4 << 8), "unavailable"),     // SQLITE_READONLY_DBMOVED
        (SQLiteResult.readOnly | (6 << 8), "unavailable"),     // SQLITE_READONLY_DIRECTORY
        (SQLiteResult.cantOpen, "unavailable"),
        (SQLiteResult.error, "internal"),
        (SQLiteResult.misuse, "internal"),
        (Int32(11), "internal"),                               // SQLITE_CORRUPT
    ] as [(Int32, String)])
    func mapping(code: Int32, expected: String) {
        let mapped = StorageError(SQLiteError(extendedCode: code, message: "m", sql: "SELECT 1"))
        let kind = switch mapped {
        case .alreadyExists: "alreadyExists"
        case .notFound: "notFound"
        case .conflict: "conflict"
        case .unavailable: "unavailable"
        case .internal: "internal"
        }
        #expect(kind == expected)
    }

    @Test func mapPassesStorageErrorsThroughAndWrapsOthers() {
        #expect(StorageError.map(StorageError.notFound("client x")) == .notFound("client x"))
        struct Other: Error {}
        guard case .internal = StorageError.map(Other()) else {
            Issue.record("expected .internal")
            return
        }
    }
}
