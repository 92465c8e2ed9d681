/// What `idp-admin db copy` moves, worked out from the two schemas rather than from a list kept
/// by hand: every SQLite table must have a PostgreSQL twin with the same columns (and the other
/// way round), so a table a later migration adds is either copied or stops the copy with a
/// message — it is never dropped in silence.
///
/// Tables are ordered so a row's foreign-key parents are in before it. A cycle (sessions name the
/// grant they were transferred from, grants name their session) is broken at a nullable column:
/// its values are written after every table is in (`deferredColumns`).
struct DatabaseCopyPlan: Sendable, Equatable {
    struct Table: Sendable, Equatable {
        let name: String
        /// In the PostgreSQL twin's order, with the twin's types.
        let columns: [Column]
        /// The SQLite primary key, for keyset batches; empty means SQLite's `rowid`.
        let keyColumns: [String]
        /// Inserted NULL, then set once every table is in (a foreign-key cycle).
        var deferredColumns: [String] = []
        /// The SQLite condition of the rows worth copying (`?1` is now, Unix seconds); nil copies all.
        var keep: String?
        /// Filled by the migrations themselves: replaced by the source's rows, not refused as "not empty".
        var seeded = false
    }

    struct Column: Sendable, Equatable {
        let name: String
        let type: ColumnType
    }

    /// The PostgreSQL types a twin column may have; anything else stops the copy (a later type
    /// must be taught here, with a conversion).
    enum ColumnType: Sendable, Equatable {
        case integer, boolean, real, text, bytea

        init?(postgres dataType: String) {
            switch dataType {
            case "bigint", "integer", "smallint": self = .integer
            case "boolean": self = .boolean
            case "double precision", "real", "numeric": self = .real
            case "text", "character varying", "character": self = .text
            case "bytea": self = .bytea
            default: return nil
            }
        }
    }

    /// A table as one backend's catalogue describes it.
    struct TableShape: Sendable, Equatable {
        let name: String
        /// Column names with the backend's declared type, in table order.
        let columns: [(name: String, type: String)]
        /// SQLite only: the primary key, in key order.
        var keyColumns: [String] = []

        static func == (lhs: TableShape, rhs: TableShape) -> Bool {
            lhs.name == rhs.name && lhs.keyColumns == rhs.keyColumns
                && lhs.columns.map(\.name) == rhs.columns.map(\.name) && lhs.columns.map(\.type) == rhs.columns.map(\.type)
        }
    }

    /// `child.column` references `parent`; `nullable` says whether the column may wait.
    struct ForeignKey: Sendable, Equatable {
        let child: String
        let column: String
        let parent: String
        let parentColumn: String
        let nullable: Bool
    }

    /// Tables neither side copies: each migrator keeps its own history.
    static let notCopied: Set<String> = ["schema_migrations"]

    /// Rows nobody can use any more, by table: dead once the column's instant has passed.
    /// Sessions are the one parent among them: one still named by another row is kept.
    static let expiry: [String: String] = [
        "authorization_codes": "expires_at",
        "deleted_user_refresh_tokens": "expires_at",
        "login_transactions": "expires_at",
        "one_time_codes": "expires_at",
        "refresh_tokens": "expires_at",
        "revoked_access_tokens": "expires_at",
        "revoked_grants": "expires_at",
        "session_transfer_tokens": "expires_at",
        "sessions": "expires_at",
    ]

    /// The tables the PostgreSQL migrations fill themselves (the change counters' first row).
    static let seeded: Set<String> = ["change_counters"]

    let tables: [Table]

    /// `sqlite` in creation order (the order ties are broken in), `postgres` in any order.
    static func make(sqlite: [TableShape], postgres: [TableShape], foreignKeys: [ForeignKey]) throws(DatabaseCopyError) -> DatabaseCopyPlan {
        let sqliteTables = sqlite.filter { !notCopied.contains($0.name) }
        let postgresByName = Dictionary(postgres.filter { !notCopied.contains($0.name) }.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let sqliteNames = Set(sqliteTables.map(\.name))
        let onlySQLite = sqliteTables.map(\.name).filter { postgresByName[$0] == nil }
        let onlyPostgres = postgresByName.keys.filter { !sqliteNames.contains($0) }.sorted()
        if !onlySQLite.isEmpty || !onlyPostgres.isEmpty {
            throw .schemasDiffer(onlySQLite: onlySQLite, onlyPostgres: onlyPostgres)
        }
        var tables: [Table] = []
        for shape in sqliteTables {
            let twin = postgresByName[shape.name]!
            let sqliteColumns = Set(shape.columns.map(\.name))
            let twinColumns = Set(twin.columns.map(\.name))
            if sqliteColumns != twinColumns {
                throw .columnsDiffer(table: shape.name, onlySQLite: shape.columns.map(\.name).filter { !twinColumns.contains($0) },
                                     onlyPostgres: twin.columns.map(\.name).filter { !sqliteColumns.contains($0) })
            }
            var columns: [Column] = []
            for column in twin.columns {
                guard let type = ColumnType(postgres: column.type) else {
                    throw .unsupportedType(table: shape.name, column: column.name, type: column.type)
                }
                columns.append(Column(name: column.name, type: type))
            }
            var table = Table(name: shape.name, columns: columns, keyColumns: shape.keyColumns)
            table.seeded = seeded.contains(shape.name)
            if let column = expiry[shape.name] {
                guard twinColumns.contains(column) else { throw .expiryColumnMissing(table: shape.name, column: column) }
                let references = foreignKeys.filter { $0.parent == shape.name && $0.child != shape.name }
                    .map { " OR EXISTS (SELECT 1 FROM \($0.child) WHERE \($0.child).\($0.column) = \(shape.name).\($0.parentColumn))" }
                table.keep = "(\(shape.name).\(column) > ?1" + references.joined() + ")"
            }
            tables.append(table)
        }
        return DatabaseCopyPlan(tables: try ordered(tables, foreignKeys: foreignKeys))
    }

    /// Parents first; ties (and cycle breaks) in SQLite's creation order, so the order is stable.
    private static func ordered(_ tables: [Table], foreignKeys: [ForeignKey]) throws(DatabaseCopyError) -> [Table] {
        let names = Set(tables.map(\.name))
        var pending = tables
        var edges = foreignKeys.filter { names.contains($0.child) && names.contains($0.parent) }
        var done: [Table] = []
        var deferred: [String: [String]] = [:]
        // A row naming its own table waits like a cycle does.
        for key in edges where key.child == key.parent {
            guard key.nullable else { throw .foreignKeyCycle([key.child]) }
            deferred[key.child, default: []].append(key.column)
        }
        edges.removeAll { $0.child == $0.parent }
        while !pending.isEmpty {
            let waiting = Set(pending.map(\.name))
            if let next = pending.firstIndex(where: { table in !edges.contains { $0.child == table.name && waiting.contains($0.parent) } }) {
                done.append(pending.remove(at: next))
                continue
            }
            // Stuck: every pending table waits on another. Break the first nullable reference.
            guard let breakable = pending.lazy.compactMap({ table in
                edges.first { $0.child == table.name && waiting.contains($0.parent) && $0.nullable }
            }).first else {
                throw .foreignKeyCycle(pending.map(\.name))
            }
            deferred[breakable.child, default: []].append(breakable.column)
            edges.removeAll { $0 == breakable }
        }
        return done.map { table in
            var table = table
            table.deferredColumns = deferred[table.name] ?? []
            return table
        }
    }
}

/// Why `db copy` stopped; each names the table (never a value, which may be a secret).
enum DatabaseCopyError: Error, Equatable, CustomStringConvertible {
    case schemasDiffer(onlySQLite: [String], onlyPostgres: [String])
    case columnsDiffer(table: String, onlySQLite: [String], onlyPostgres: [String])
    case unsupportedType(table: String, column: String, type: String)
    case expiryColumnMissing(table: String, column: String)
    case foreignKeyCycle([String])
    case sourceVersion(database: Int, binary: Int)
    case targetNotEmpty([String])
    case targetForeign([String])
    case conversion(table: String, column: String, found: String, expected: String)
    case countMismatch(table: String, expected: Int, found: Int)

    var description: String {
        switch self {
        case .schemasDiffer(let onlySQLite, let onlyPostgres):
            "the SQLite and PostgreSQL schemas differ (tables only in SQLite: \(Self.list(onlySQLite)); only in PostgreSQL: \(Self.list(onlyPostgres))): this binary's migrations are out of step; nothing was copied"
        case .columnsDiffer(let table, let onlySQLite, let onlyPostgres):
            "table \(table) differs between the backends (columns only in SQLite: \(Self.list(onlySQLite)); only in PostgreSQL: \(Self.list(onlyPostgres))); nothing was copied"
        case .unsupportedType(let table, let column, let type):
            "\(table).\(column) has PostgreSQL type \(type), which db copy cannot convert yet; nothing was copied"
        case .expiryColumnMissing(let table, let column):
            "\(table) has no \(column) column to tell expired rows by; nothing was copied"
        case .foreignKeyCycle(let tables):
            "the foreign keys between \(tables.joined(separator: ", ")) form a cycle without a nullable column to break it"
        case .sourceVersion(let database, let binary):
            "the SQLite database is at schema version \(database) but this binary's is \(binary): run `idp-admin db migrate` (or start this version of idp once) first, so both sides have the same tables"
        case .targetNotEmpty(let tables):
            "the target already holds rows (in \(tables.joined(separator: ", "))): db copy only fills an empty database; drop and recreate it, or choose another"
        case .targetForeign(let tables):
            "the target holds tables that are not a Gatehouse schema (\(tables.prefix(5).joined(separator: ", "))): db copy only fills an empty database"
        case .conversion(let table, let column, let found, let expected):
            "\(table).\(column) holds an SQLite \(found) where PostgreSQL wants \(expected); nothing was copied"
        case .countMismatch(let table, let expected, let found):
            "after copying, \(table) has \(found) rows in PostgreSQL instead of \(expected); nothing was committed"
        }
    }

    private static func list(_ names: [String]) -> String { names.isEmpty ? "none" : names.joined(separator: ", ") }
}
