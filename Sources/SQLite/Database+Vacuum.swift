import Glibc

/// Giving freed pages back to the file system, and the numbers `idp-admin db stats` shows.
///
/// Deleting rows only moves their pages to SQLite's free list: the file keeps its size. With
/// `auto_vacuum=INCREMENTAL` (set on every file `Connection` creates) `incrementalVacuum` moves
/// pages from the end of the file into free slots and truncates, a few hundred pages per short
/// write, so the daemon can do it beside traffic. A file created without it needs one full
/// `VACUUM` (`vacuum()`), which rewrites the whole file under the write lock.
extension Database {
    /// `PRAGMA auto_vacuum`: 0 none, 1 full, 2 incremental.
    public enum AutoVacuum: Int, Sendable {
        case none = 0, full = 1, incremental = 2

        public var name: String {
            switch self {
            case .none: "none"
            case .full: "full"
            case .incremental: "incremental"
            }
        }
    }

    public struct PageStats: Sendable, Equatable {
        public let pageSize: Int
        public let pageCount: Int
        /// Pages on the free list: space the file holds but no row uses.
        public let freePages: Int
        public let autoVacuum: AutoVacuum
    }

    /// Page size, page count, free pages and the auto-vacuum mode, as of the latest commit.
    public func pageStats() throws -> PageStats {
        try read { connection in
            func pragma(_ name: String) throws -> Int { try connection.queryOne("PRAGMA \(name)")?.int(0) ?? 0 }
            return PageStats(pageSize: try pragma("page_size"), pageCount: try pragma("page_count"),
                             freePages: try pragma("freelist_count"),
                             autoVacuum: AutoVacuum(rawValue: try pragma("auto_vacuum")) ?? .none)
        }
    }

    /// Releases up to `pages` free pages in one write transaction (`PRAGMA incremental_vacuum(N)`).
    /// Returns how many were released and how long the write lock was held. Does nothing (0) on a
    /// file without incremental auto-vacuum. In WAL mode the file shrinks at the next checkpoint.
    public func incrementalVacuum(pages: Int) throws -> (released: Int, held: Duration) {
        let step = max(1, pages)
        let (released, held) = try timedWrite { connection -> Int in
            let before = try connection.queryOne("PRAGMA freelist_count")?.int(0) ?? 0
            // PRAGMA takes no bindings; `step` is an Int, so formatting it is safe.
            _ = try connection.query("PRAGMA incremental_vacuum(\(step))")
            let after = try connection.queryOne("PRAGMA freelist_count")?.int(0) ?? 0
            return before - after
        }
        return (released, held)
    }

    /// Rebuilds the file with `VACUUM`, switching it to incremental auto-vacuum first, then
    /// truncates the WAL. Holds the write lock for the whole copy (other writers wait up to their
    /// busy timeout) and needs free disk space of about twice the database.
    public func vacuum() throws {
        try withWriter { connection in
            try connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
            try connection.execute("VACUUM")
        }
        try checkpoint(truncate: true)
    }

    /// Sizes in bytes of the database file and its `-wal` file (0 when absent).
    public func fileSizes() -> (database: Int64, wal: Int64) {
        (Self.fileSize(path), Self.fileSize(path + "-wal"))
    }

    static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
