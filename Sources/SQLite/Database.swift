import CSQLite
import FoundationEssentials
import Glibc

/// The connection pool the app uses: one writer behind a mutex and N read-only readers, all in WAL mode.
///
/// Writes are serialised in-process by the mutex and across processes by `BEGIN IMMEDIATE`
/// plus `busy_timeout`, which takes the write lock up front: a deferred transaction that
/// read first and then tried to write could hit SQLITE_BUSY with no way to wait it out.
public final class Database: Sendable {
    public let path: String
    private let writer: Locked<Connection?>
    private let readers: ReaderPool
    /// The thread inside `withWriter`, so a nested `write` fails loudly instead of deadlocking.
    private let writerThread = Locked<pthread_t?>(nil)
    /// Set by `startBackgroundCheckpoints` (the daemon only).
    let checkpointer = Locked<BackgroundCheckpointer?>(nil)
    /// The outcome of the last `write`s, for readiness (a full disk still answers reads).
    public let writeHealth = WriteHealth()

    /// Opens the database at `path`, creating it and its parent directory if missing.
    public init(path: String, readers: Int = 4, busyTimeout: Duration = .seconds(5)) throws {
        self.path = path
        let directory = Self.parentDirectory(of: path)
        if !directory.isEmpty && !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw SQLiteError(extendedCode: SQLITE_CANTOPEN,
                                  message: "cannot open \(path): cannot create directory \(directory): \(Self.describe(error))")
            }
        }
        // The writer first: it creates the file and switches it to WAL, which readers then find.
        let writerConnection = try Connection(path: path, busyTimeout: busyTimeout)
        // One reader now, so a file readers cannot open fails here; the others on first need.
        let firstReader: Connection
        do {
            firstReader = try Connection(path: path, readOnly: true, busyTimeout: busyTimeout)
        } catch {
            writerConnection.close()
            throw error
        }
        self.writer = Locked(writerConnection)
        self.readers = ReaderPool(first: firstReader, capacity: readers) {
            try Connection(path: path, readOnly: true, busyTimeout: busyTimeout)
        }
    }

    deinit {
        close()
    }

    /// "No such file or directory" rather than the CocoaError's debug text FileManager throws.
    private static func describe(_ error: any Error) -> String {
        if let posix = (error as? CocoaError)?.underlying as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        return "\(error)"
    }

    /// What `NSString.deletingLastPathComponent` gave: "" for a bare file name, "/" at the root.
    static func parentDirectory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction on the writer and commits;
    /// rolls back and rethrows if `body` (or the commit) throws.
    ///
    /// Not reentrant: calling `write` from inside `body` throws `SQLITE_MISUSE`; use the passed
    /// connection. A `read` inside `body` works but does not see the uncommitted writes.
    @discardableResult
    public func write<T>(_ body: (Connection) throws -> T) throws -> T {
        try write(timed: nil, body)
    }

    /// `write`, also returning how long the write lock was held (from the moment BEGIN IMMEDIATE
    /// got it to after the commit; waiting for it is not holding it), for maintenance work that
    /// must stay short beside request traffic.
    public func timedWrite<T>(_ body: (Connection) throws -> T) throws -> (value: T, held: Duration) {
        var held = Duration.zero
        let value = try write(timed: { held = $0 }, body)
        return (value, held)
    }

    private func write<T>(timed: ((Duration) -> Void)?, _ body: (Connection) throws -> T) throws -> T {
        do {
            let value = try withWriter { connection in
                var start: ContinuousClock.Instant?
                defer { if let start { timed?(ContinuousClock.now - start) } }
                return try Self.transaction(on: connection, begin: "BEGIN IMMEDIATE") { connection in
                    start = ContinuousClock.now
                    return try body(connection)
                }
            }
            writeHealth.recordSuccess()
            return value
        } catch {
            writeHealth.recordFailure(error)
            throw error
        }
    }

    /// Runs `body` on a reader inside a deferred read transaction, so every query in it
    /// sees the same snapshot. Readers never block the writer, nor the writer them (WAL).
    @discardableResult
    public func read<T>(_ body: (Connection) throws -> T) throws -> T {
        try readers.withReader { try Self.transaction(on: $0, begin: "BEGIN DEFERRED", body) }
    }

    /// Runs `body` between `begin` and COMMIT; rolls back and rethrows if `body` or the commit throws.
    private static func transaction<T>(on connection: Connection, begin: String, _ body: (Connection) throws -> T) throws -> T {
        try connection.run(begin)
        do {
            let value = try body(connection)
            try connection.run("COMMIT")
            return value
        } catch {
            // SQLite may already have rolled back (e.g. some SQLITE_FULL cases).
            if connection.isInTransaction { _ = try? connection.run("ROLLBACK") }
            throw error
        }
    }

    /// The writer connection outside any transaction, for pragmas and checkpoints.
    /// Holds the write mutex for the duration of `body`.
    @discardableResult
    public func withWriter<T>(_ body: (Connection) throws -> T) throws -> T {
        let current = pthread_self()
        if let owner = writerThread.withLock({ $0 }), pthread_equal(owner, current) != 0 {
            throw SQLiteError.misuse("nested write on database \(path): use the connection passed to the outer write")
        }
        return try writer.withLock { connection in
            guard let connection else { throw SQLiteError.misuse("database \(path) is closed") }
            writerThread.withLock { $0 = current }
            defer { writerThread.withLock { $0 = nil } }
            return try body(connection)
        }
    }

    /// A reader connection outside any transaction (backup, diagnostics).
    public func withReader<T>(_ body: (Connection) throws -> T) throws -> T {
        try readers.withReader(body)
    }

    /// Every SQL text the writer and the idle readers have cached: the statements a workload ran,
    /// for tests that check each one's query plan.
    public func cachedStatementTexts() -> Set<String> {
        var texts = Set<String>()
        writer.withLock { connection in connection.map { texts.formUnion($0.cachedStatementTexts) } }
        readers.forEachIdle { texts.formUnion($0.cachedStatementTexts) }
        return texts
    }

    /// Copies the WAL back into the database file; `truncate` also empties the `-wal` file,
    /// waiting (up to the busy timeout) for readers of older snapshots to finish.
    public func checkpoint(truncate: Bool = true) throws {
        try withWriter { connection in
            let db = try connection.openHandle("PRAGMA wal_checkpoint")
            var logFrames: Int32 = 0
            var checkpointed: Int32 = 0
            let mode = truncate ? SQLITE_CHECKPOINT_TRUNCATE : SQLITE_CHECKPOINT_PASSIVE
            let result = sqlite3_wal_checkpoint_v2(db, nil, mode, &logFrames, &checkpointed)
            guard result == SQLITE_OK else {
                throw SQLiteError(resultCode: result, db: db,
                                  sql: truncate ? "PRAGMA wal_checkpoint(TRUNCATE)" : "PRAGMA wal_checkpoint(PASSIVE)")
            }
        }
    }

    /// `PRAGMA integrity_check`: `["ok"]` when the file is sound, otherwise the problems found.
    public func integrityCheck() throws -> [String] {
        try read { connection in
            try connection.query("PRAGMA integrity_check").map { try $0.string(0) }
        }
    }

    /// Closes every connection, finalizing cached statements. Idempotent; later calls throw.
    /// Readers in use close when their caller returns them.
    public func close() {
        checkpointer.withLock { current in
            current?.stop()
            current = nil
        }
        readers.close()
        writer.withLock { connection in
            connection?.close()
            connection = nil
        }
    }
}
