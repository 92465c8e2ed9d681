import CSQLite
import FoundationEssentials
import Glibc

extension Database {
    /// Writes a consistent copy of the database to `destination` with SQLite's online backup API.
    ///
    /// The copy is taken from a reader inside one read transaction, so it is a single snapshot
    /// and writers keep going meanwhile (WAL); it goes in steps of `pagesPerStep`, reporting
    /// (pages copied, pages in all) after each, so a long backup can show its progress. It is
    /// written to a temporary file beside `destination` and renamed into place, so a failed backup
    /// never leaves a half-written file under the final name.
    public func backup(to destination: String, pagesPerStep: Int32 = 1024,
                       progress: (_ copied: Int, _ total: Int) -> Void = { _, _ in }) throws {
        let temporary = destination + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        removeDatabaseFiles(temporary)
        do {
            try withReader { source in
                let sourceHandle = try source.openHandle("backup")
                try Self.copy(from: sourceHandle, to: temporary, pagesPerStep: pagesPerStep, progress: progress)
            }
            // Stale -wal/-shm beside an older backup would be replayed into the new file.
            removeDatabaseFiles(destination, keepMain: true)
            guard rename(temporary, destination) == 0 else {
                throw SQLiteError(extendedCode: SQLITE_IOERR,
                                  message: "backup: cannot rename \(temporary) to \(destination): errno \(errno)")
            }
        } catch {
            removeDatabaseFiles(temporary)
            throw error
        }
    }

    private static func copy(from source: OpaquePointer, to path: String, pagesPerStep: Int32,
                             progress: (Int, Int) -> Void) throws {
        var destination: OpaquePointer?
        let openResult = sqlite3_open_v2(path, &destination, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        defer { sqlite3_close_v2(destination) }
        guard openResult == SQLITE_OK, let destination else {
            throw SQLiteError(resultCode: openResult, db: destination, sql: "backup to \(path)")
        }
        sqlite3_extended_result_codes(destination, 1)
        guard let backup = sqlite3_backup_init(destination, "main", source, "main") else {
            throw SQLiteError(resultCode: sqlite3_extended_errcode(destination), db: destination, sql: "backup to \(path)")
        }
        // The explicit read transaction pins one snapshot across the steps (without it, a write
        // between steps would restart the copy).
        let began = sqlite3_exec(source, "BEGIN; SELECT count(*) FROM sqlite_schema;", nil, nil, nil)
        defer { if began == SQLITE_OK { sqlite3_exec(source, "COMMIT", nil, nil, nil) } }
        var stepResult: Int32
        repeat {
            stepResult = sqlite3_backup_step(backup, pagesPerStep)
            let total = Int(sqlite3_backup_pagecount(backup))
            progress(total - Int(sqlite3_backup_remaining(backup)), total)
        } while stepResult == SQLITE_OK
        let finishResult = sqlite3_backup_finish(backup)
        guard stepResult == SQLITE_DONE else {
            throw SQLiteError(resultCode: stepResult, db: destination, sql: "backup to \(path)")
        }
        guard finishResult == SQLITE_OK else {
            throw SQLiteError(resultCode: finishResult, db: destination, sql: "backup to \(path)")
        }
    }

    private func removeDatabaseFiles(_ path: String, keepMain: Bool = false) {
        let suffixes = keepMain ? ["-wal", "-shm", "-journal"] : ["", "-wal", "-shm", "-journal"]
        for suffix in suffixes {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
