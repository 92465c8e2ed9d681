import FoundationEssentials
import Model
import SQLite

/// What `idp-admin db stats` prints: rows per table (and how many a purge would delete now),
/// file sizes, pages.
public struct DatabaseStats: Sendable {
    public struct Table: Sendable, Equatable {
        public let name: String
        public let rows: Int
        /// Rows a purge at that instant would delete; nil for tables no rule cleans. Sessions held only
        /// by a grant that is due too are not counted, though the run deletes them after the grant.
        public let due: Int?
    }

    public let tables: [Table]
    public let databaseBytes: Int64
    public let walBytes: Int64
    public let pageSize: Int
    public let pageCount: Int
    public let freePages: Int
    /// `none`, `full` or `incremental`; only `incremental` lets the daemon give space back.
    public let autoVacuum: String

    /// Counts every table (full scans on a reader: fine for an operator, not for a request).
    public static func collect(_ store: Store, policy: RetentionPolicy, at now: Date) throws(StorageError) -> DatabaseStats {
        let due = try Purger(store: store).dueCounts(policy, at: now)
        return try mapStorageErrors {
            let database = store.database
            let tables = try database.read { connection in
                try connection.query("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
                    .map { row -> Table in
                        let name = try row.string(0)
                        // A name from the schema itself, quoted as an identifier.
                        let quoted = "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
                        let rows = try connection.queryOne("SELECT count(*) FROM \(quoted)")?.int(0) ?? 0
                        return Table(name: name, rows: rows, due: PurgeTable(rawValue: name).map { due[$0] ?? 0 })
                    }
            }
            let pages = try database.pageStats()
            let sizes = database.fileSizes()
            return DatabaseStats(tables: tables, databaseBytes: sizes.database, walBytes: sizes.wal, pageSize: pages.pageSize,
                                 pageCount: pages.pageCount, freePages: pages.freePages, autoVacuum: pages.autoVacuum.name)
        }
    }
}
