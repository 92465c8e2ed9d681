import CSQLite
import FoundationEssentials
import Glibc

extension Database {
    /// Writes a consistent copy of the database to `destination` with SQLite's online backup API.
    ///
    /// The copy is taken in one step from a reader, so it is a single snapshot and writers keep
    /// going meanwhile (WAL). It is written to a temporary file beside `destination` and renamed
    /// into place, so a failed backup never leaves a half-written file under the final name.
    public func backup(to destination: String) throws {
        let temporary = destination + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        removeDatabaseFiles(temporary)
        do {
            try withReader { source in
                let sourceHandle = try source.openHandle("backup")
                try Self.copy(from: sourceHandle, to: temporary)
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

    private static func copy(from source: OpaquePointer, to path: String) throws {
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
        // -1: all pages in one step, inside one read transaction on the source.
        let stepResult = sqlite3_backup_step(backup, -1)
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
