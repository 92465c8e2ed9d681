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
    /// `autovacuum` on PostgreSQL, where `databaseBytes` is `pg_database_size` and the page counts are 0.
    public let autoVacuum: String

    /// Counts every table (full scans on a reader: fine for an operator, not for a request).
    public static func collect(_ store: some SQLStorage, policy: RetentionPolicy, at now: Date) throws(StorageError) -> DatabaseStats {
        let due = try Purger(store: store).dueCounts(policy, at: now)
        return try mapStorageErrors {
            let database = store.records.sql
            let tableNames = switch database.dialect {
            case .sqlite: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
            case .postgresql: "SELECT tablename::text AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY name"
            }
            let tables = try database.read { connection in
                try connection.query(tableNames)
                    .map { row -> Table in
                        let name = try row.string(0)
                        // A name from the schema itself, quoted as an identifier.
                        let quoted = "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
                        let rows = try connection.queryOne("SELECT count(*) FROM \(quoted)")?.int(0) ?? 0
                        return Table(name: name, rows: rows, due: PurgeTable(rawValue: name).map { due[$0] ?? 0 })
                    }
            }
            guard let database = database as? Database else {
                let bytes = try serverBytes(store)
                return DatabaseStats(tables: tables, databaseBytes: bytes, walBytes: 0, pageSize: 0, pageCount: 0, freePages: 0,
                                     autoVacuum: "autovacuum")
            }
            let pages = try database.pageStats()
            let sizes = database.fileSizes()
            return DatabaseStats(tables: tables, databaseBytes: sizes.database, walBytes: sizes.wal, pageSize: pages.pageSize,
                                 pageCount: pages.pageCount, freePages: pages.freePages, autoVacuum: pages.autoVacuum.name)
        }
    }

    /// `pg_database_size` of a PostgreSQL database.
    public static func serverBytes(_ store: some SQLStorage) throws(StorageError) -> Int64 {
        try mapStorageErrors {
            try store.records.sql.withReader { try $0.queryOne("SELECT pg_database_size(current_database())")?.int64(0) } ?? 0
        }
    }

    /// A plain `VACUUM (ANALYZE)` of a PostgreSQL database: outside a transaction, as it must be,
    /// and under no lock that stops reads or writes (unlike `VACUUM FULL`, which Gatehouse never runs).
    public static func vacuumServer(_ store: some SQLStorage) throws(StorageError) {
        try mapStorageErrors {
            let database = store.records.sql
            guard database.dialect == .postgresql else { throw StorageError.internal("VACUUM (ANALYZE) is for PostgreSQL") }
            try database.withReader { try $0.execute("VACUUM (ANALYZE)") }
        }
    }
}
