import CSQLite

/// Process-wide SQLite settings, applied once before the first connection opens (SQLite refuses
/// `sqlite3_config` after it has initialised; a refusal leaves its defaults, which are only slower).
///
/// Allocation statistics off: SQLite counts every allocation under one process-wide mutex, which all
/// connections then contend for. With the token endpoint's workers that mutex took a quarter of the
/// server's futex calls per refresh (issue #18), and nothing in Gatehouse reads those statistics.
///
/// No initial page-cache block: by default every connection allocates and touches room for 20 pages
/// (87 KB) when it first reads, used or not; with a dozen connections (the writer, the readers, the
/// checkpointer) that was half of an idle daemon's heap (issue #18, README "Memory and start").
/// Pages are then allocated as a connection reads them, as they are past the 20th anyway.
///
/// True when SQLite took both; false leaves its defaults, which cost only memory and time.
let processWideSettingsApplied: Bool = {
    let statistics = gh_sqlite3_config_memstatus(0)
    let pageCache = gh_sqlite3_config_initial_page_cache(0)
    return statistics == SQLITE_OK && pageCache == SQLITE_OK
}()

/// One SQLite connection (`sqlite3*`) with a prepared-statement cache.
///
/// Not thread-safe by itself: it is opened with `SQLITE_OPEN_NOMUTEX` and its owner
/// (a `Database`, or a test) guarantees one thread at a time. That is why it is
/// `@unchecked Sendable`: it may move between threads, never be shared by two at once.
public final class Connection: @unchecked Sendable {
    /// The raw handle; nil once closed.
    private(set) var handle: OpaquePointer?
    /// The busy timeout this connection was opened with.
    private(set) var busyTimeoutMilliseconds: Int64 = 0
    public let path: String
    public let readOnly: Bool
    private var cache: [String: Statement] = [:]
    /// How many statements were compiled, so tests can prove the cache is used.
    public private(set) var preparedStatementCount = 0

    /// Beyond this many distinct SQL texts the cache is emptied: dynamic SQL must not grow it forever.
    static let cacheLimit = 128

    /// Opens (creating unless `readOnly`) the database at `path` and applies the pragmas
    /// Gatehouse relies on: WAL (verified), `busy_timeout`, `foreign_keys=ON`, `synchronous=NORMAL`,
    /// and `auto_vacuum=INCREMENTAL` for a file it creates.
    public init(path: String, readOnly: Bool = false, busyTimeout: Duration = .seconds(5)) throws {
        _ = processWideSettingsApplied
        self.path = path
        self.readOnly = readOnly
        // NOMUTEX: the owner serialises access, so SQLite's own mutex would only cost time.
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
            | SQLITE_OPEN_NOMUTEX
        var db: OpaquePointer?
        let result = sqlite3_open_v2(path, &db, flags, nil)
        guard result == SQLITE_OK, let db else {
            let error = SQLiteError(resultCode: result, db: db)
            // sqlite3_open_v2 allocates a handle even on failure; it must still be closed.
            sqlite3_close_v2(db)
            throw SQLiteError(extendedCode: error.extendedCode, message: "cannot open \(path): \(error.message)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        do {
            try configure(busyTimeout: busyTimeout)
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
    }

    private func configure(busyTimeout: Duration) throws {
        let milliseconds = busyTimeout.components.seconds * 1000
            + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
        busyTimeoutMilliseconds = Int64(milliseconds)
        // Defensive: no double-quoted string literals, which silently turn typos into text.
        var ignored: Int32 = 0
        _ = gh_sqlite3_db_config_int(handle, SQLITE_DBCONFIG_DQS_DML, 0, &ignored)
        _ = gh_sqlite3_db_config_int(handle, SQLITE_DBCONFIG_DQS_DDL, 0, &ignored)

        // A brand-new file takes incremental auto-vacuum, so space freed by purges can be given back
        // (`Database.incrementalVacuum`). It must be chosen before the first table and before WAL
        // mode writes the header; an existing file keeps its mode until a VACUUM (`idp-admin db vacuum`).
        // (A failing read here is reported by the WAL step below, with the path.)
        if !readOnly, (try? queryOne("PRAGMA page_count")?.int(0)) == 0 {
            try execute("PRAGMA auto_vacuum = INCREMENTAL")
        }

        // journal_mode answers with the mode in force: anything but "wal" (an in-memory
        // database, a directory that cannot hold the -wal file, a read-only non-WAL file)
        // would silently lose WAL's reader/writer concurrency, so refuse to run on it.
        let mode: SQLValue?
        do {
            mode = try enableWAL(busyTimeout: busyTimeout)
        } catch let error as SQLiteError {
            throw SQLiteError(
                extendedCode: error.extendedCode,
                message: "cannot open \(path): journal_mode=WAL could not be enabled: \(error.message)",
                sql: error.sql)
        }
        guard mode == .text("wal") else {
            let found = mode.map { if case .text(let text) = $0 { text } else { $0.typeName } } ?? "nothing"
            throw SQLiteError(
                extendedCode: SQLITE_CANTOPEN,
                message: "cannot open \(path): journal_mode=WAL could not be enabled (mode is \(found))",
                sql: "PRAGMA journal_mode = WAL")
        }
        try execute("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")
    }

    /// `PRAGMA journal_mode = WAL`, retried while another connection holds the lock: SQLite answers
    /// a contended journal-mode change with SQLITE_BUSY at once, without its busy handler, which two
    /// processes opening a brand-new database together (idp and idp-admin) would otherwise hit.
    private func enableWAL(busyTimeout: Duration) throws -> SQLValue? {
        let clock = ContinuousClock()
        let deadline = clock.now + busyTimeout
        while true {
            do {
                return try queryOne("PRAGMA journal_mode = WAL").flatMap { $0[0] }
            } catch let error as SQLiteError where error.isBusy && clock.now < deadline {
                sqlite3_sleep(5)  // milliseconds
            }
        }
    }

    /// Finalizes cached statements and closes the handle. Idempotent.
    public func close() {
        cache.removeAll()
        if let handle {
            sqlite3_close_v2(handle)
            self.handle = nil
        }
    }

    public var isClosed: Bool { handle == nil }

    /// Runs a script of zero or more statements without bindings (schema, pragmas).
    public func execute(_ sql: String) throws {
        let db = try openHandle(sql)
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(db, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard result == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(result))
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(db), message: text, sql: sql)
        }
    }

    /// Runs one statement and returns the number of rows it changed.
    @discardableResult
    public func run(_ sql: String, _ bindings: [SQLValue] = []) throws -> Int {
        _ = try statement(sql).execute(bindings)
        return Int(sqlite3_changes64(handle))
    }

    /// Runs one statement and returns every row.
    public func query(_ sql: String, _ bindings: [SQLValue] = []) throws -> [Row] {
        try statement(sql).execute(bindings)
    }

    /// Runs one statement and returns its first row, if any.
    public func queryOne(_ sql: String, _ bindings: [SQLValue] = []) throws -> Row? {
        try query(sql, bindings).first
    }

    /// The rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 {
        handle.map { sqlite3_last_insert_rowid($0) } ?? 0
    }

    /// Whether a transaction is open (SQLite may have rolled one back by itself, e.g. on SQLITE_FULL).
    public var isInTransaction: Bool {
        handle.map { sqlite3_get_autocommit($0) == 0 } ?? false
    }

    /// Number of cached prepared statements.
    public var cachedStatementCount: Int { cache.count }

    /// The SQL texts of the cached statements: what this connection has run lately (plan checks in tests).
    public var cachedStatementTexts: [String] { Array(cache.keys) }

    func openHandle(_ sql: String?) throws -> OpaquePointer {
        guard let handle else { throw SQLiteError.misuse("connection to \(path) is closed", sql: sql) }
        return handle
    }

    /// The cached statement for `sql`, compiling it on first use.
    private func statement(_ sql: String) throws -> Statement {
        if let cached = cache[sql] { return cached }
        let db = try openHandle(sql)
        var stmt: OpaquePointer?
        // `tail` points into the C string, which lives only inside `withCString`: look at it there.
        // (Read after an implicit String-to-pointer conversion, it could be a freed temporary.)
        let (result, moreSQL) = sql.withCString { text -> (Int32, Bool) in
            var tail: UnsafePointer<CChar>?
            let result = sqlite3_prepare_v3(db, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, &tail)
            guard result == SQLITE_OK, let tail, tail.pointee != 0 else { return (result, false) }
            return (result, Self.compilesToStatement(db, tail))
        }
        guard result == SQLITE_OK else {
            sqlite3_finalize(stmt)
            throw SQLiteError(resultCode: result, db: db, sql: sql)
        }
        guard let stmt else {
            throw SQLiteError.misuse("no statement in SQL", sql: sql)
        }
        // A second statement after the first would be silently ignored: refuse it instead,
        // which also keeps stacked-query injection out even if SQL were ever concatenated.
        if moreSQL {
            sqlite3_finalize(stmt)
            throw SQLiteError.misuse("more than one statement; use execute(_:) for scripts", sql: sql)
        }
        preparedStatementCount += 1
        let statement = Statement(handle: stmt, sql: sql, db: db)
        if cache.count >= Self.cacheLimit { cache.removeAll() }
        cache[sql] = statement
        return statement
    }

    /// Whether `text` holds a statement, rather than only whitespace, semicolons or comments.
    private static func compilesToStatement(_ db: OpaquePointer, _ text: UnsafePointer<CChar>) -> Bool {
        var stmt: OpaquePointer?
        let result = sqlite3_prepare_v2(db, text, -1, &stmt, nil)
        defer { sqlite3_finalize(stmt) }
        // A syntax error in the tail still means "something more was there".
        return result != SQLITE_OK || stmt != nil
    }
}
