import PostgreSQL
import SQLite
import Storage

/// Copies a migrated SQLite database into an empty PostgreSQL one (`idp-admin db copy`).
///
/// The story when something fails is "nothing happened": the schema is created first (by
/// `PostgresMigrator`, in its own transactions), then every row goes in inside ONE PostgreSQL
/// transaction, read from ONE SQLite snapshot, and the row counts are checked before COMMIT. A
/// failure rolls everything back and leaves the schema with empty tables, which a rerun accepts
/// as empty. Rows nobody can use any more (expired codes, tokens, sessions) are left behind.
struct DatabaseCopier {
    struct TableReport: Sendable, Equatable {
        let table: String
        /// Rows in the SQLite snapshot.
        let source: Int
        /// Rows written to PostgreSQL (the rest were expired).
        let copied: Int
        var skipped: Int { source - copied }
    }

    let source: Database
    let target: PostgresDatabase
    /// Unix seconds: rows expired at this instant are not copied.
    let now: Int64
    /// Rows per INSERT (fewer for wide tables: PostgreSQL takes at most 65,535 parameters).
    var batchSize = 500
    /// Called after each table with its report, for the progress line.
    var onTable: (TableReport) -> Void = { _ in }

    func run() throws -> [TableReport] {
        try checkSourceVersion()
        try refuseForeignTarget()
        try PostgresMigrator(EmbeddedMigrations.postgresql, database: target).migrate()
        return try source.read { sqlite in
            let plan = try target.withConnection { postgres in
                try DatabaseCopyPlan.make(sqlite: try DatabaseCopySchemas.sqlite(sqlite),
                                          postgres: try DatabaseCopySchemas.postgres(postgres),
                                          foreignKeys: try DatabaseCopySchemas.postgresForeignKeys(postgres))
            }
            return try target.write { postgres in
                // One long transaction by design: its statements may outlast a request's timeout.
                try postgres.execute("SET LOCAL statement_timeout = 0")
                try refuseRows(plan, postgres)
                var reports: [TableReport] = []
                for table in plan.tables {
                    let report = try copy(table, from: sqlite, to: postgres)
                    reports.append(report)
                    onTable(report)
                }
                for table in plan.tables where !table.deferredColumns.isEmpty {
                    try fillDeferred(table, from: sqlite, to: postgres)
                }
                try advanceSequences(postgres)
                try verify(reports, plan, sqlite, postgres)
                return reports
            }
        }
    }

    /// Both sides must have the same tables, which holds when the SQLite schema is this binary's.
    private func checkSourceVersion() throws {
        let migrator = Migrator(EmbeddedMigrations.all, database: source)
        try migrator.verify()
        let applied = try migrator.status().filter(\.applied).map(\.migration.version).max() ?? 0
        guard applied == migrator.binaryVersion else {
            throw DatabaseCopyError.sourceVersion(database: applied, binary: migrator.binaryVersion)
        }
    }

    /// Tables without our `schema_migrations` belong to someone else: never migrate into them.
    private func refuseForeignTarget() throws {
        let tables = try target.withConnection { try DatabaseCopySchemas.postgresTableNames($0) }
        if !tables.isEmpty && !tables.contains("schema_migrations") { throw DatabaseCopyError.targetForeign(tables) }
    }

    private func refuseRows(_ plan: DatabaseCopyPlan, _ postgres: PostgresConnection) throws {
        var filled: [String] = []
        for table in plan.tables {
            if table.seeded {
                try postgres.run("DELETE FROM \(sqlIdentifier(table.name))")
            } else if try postgres.queryOne("SELECT 1 AS present FROM \(sqlIdentifier(table.name)) LIMIT 1") != nil {
                filled.append(table.name)
            }
        }
        if !filled.isEmpty { throw DatabaseCopyError.targetNotEmpty(filled) }
    }

    private func copy(_ table: DatabaseCopyPlan.Table, from sqlite: some SQLConnection, to postgres: PostgresConnection) throws -> TableReport {
        let total = try sqlite.queryOne("SELECT count(*) AS n FROM \(sqlIdentifier(table.name))")?.int("n") ?? 0
        let perBatch = max(1, min(batchSize, 65_535 / max(1, table.columns.count)))
        var copied = 0
        try scan(table, columns: table.columns.map(\.name), where: nil, sqlite, batch: perBatch) { rows in
            var bindings: [SQLValue] = []
            bindings.reserveCapacity(rows.count * table.columns.count)
            var tuples: [String] = []
            for row in rows {
                var placeholders: [String] = []
                for (index, column) in table.columns.enumerated() {
                    let value = table.deferredColumns.contains(column.name) ? .null : row.values[index]
                    bindings.append(try Self.convert(value, to: column.type, table: table.name, column: column.name))
                    placeholders.append("?\(bindings.count)" + (column.type == .boolean ? "::boolean" : ""))
                }
                tuples.append("(" + placeholders.joined(separator: ", ") + ")")
            }
            let names = table.columns.map { sqlIdentifier($0.name) }.joined(separator: ", ")
            try postgres.run("INSERT INTO \(sqlIdentifier(table.name)) (\(names)) VALUES \(tuples.joined(separator: ", "))", bindings)
            copied += rows.count
        }
        return TableReport(table: table.name, source: total, copied: copied)
    }

    /// The columns a cycle held back, row by row (few: a session transferred from a grant).
    private func fillDeferred(_ table: DatabaseCopyPlan.Table, from sqlite: some SQLConnection, to postgres: PostgresConnection) throws {
        guard !table.keyColumns.isEmpty else { throw DatabaseCopyError.foreignKeyCycle([table.name]) }
        let deferred = table.deferredColumns
        let notNull = "(" + deferred.map { "\(sqlIdentifier($0)) IS NOT NULL" }.joined(separator: " OR ") + ")"
        let types = Dictionary(uniqueKeysWithValues: table.columns.map { ($0.name, $0.type) })
        let sets = deferred.enumerated().map { "\(sqlIdentifier($1)) = ?\($0 + 1)" }.joined(separator: ", ")
        let matches = table.keyColumns.enumerated().map { "\(sqlIdentifier($1)) = ?\(deferred.count + $0 + 1)" }.joined(separator: " AND ")
        let update = "UPDATE \(sqlIdentifier(table.name)) SET \(sets) WHERE \(matches)"
        try scan(table, columns: deferred + table.keyColumns, where: notNull, sqlite, batch: batchSize) { rows in
            for row in rows {
                let names = deferred + table.keyColumns
                let bindings = try names.enumerated().map { index, name in
                    try Self.convert(row.values[index], to: types[name]!, table: table.name, column: name)
                }
                try postgres.run(update, bindings)
            }
        }
    }

    /// Visits the rows to copy in primary-key order, `batch` at a time (keyset pagination: each
    /// read starts after the last key seen, so a big table costs no more per batch than a small one).
    private func scan(_ table: DatabaseCopyPlan.Table, columns: [String], where extra: String?,
                      _ sqlite: some SQLConnection, batch: Int, _ body: ([Row]) throws -> Void) throws {
        let keys = table.keyColumns.isEmpty ? ["rowid"] : table.keyColumns
        let selected = columns.map(sqlIdentifier) + keys.enumerated().map { "\($1 == "rowid" ? "rowid" : sqlIdentifier($1)) AS copy_key_\($0)" }
        var conditions: [String] = []
        var fixed: [SQLValue] = []
        // `?1` is always bound (now), so the cursor's numbers never move.
        conditions.append(table.keep ?? "?1 IS NOT NULL")
        fixed.append(.integer(now))
        if let extra { conditions.append(extra) }
        let cursorList = keys.indices.map { "?\($0 + 2)" }.joined(separator: ", ")
        let keyList = keys.map { $0 == "rowid" ? "rowid" : sqlIdentifier($0) }.joined(separator: ", ")
        let base = "SELECT \(selected.joined(separator: ", ")) FROM \(sqlIdentifier(table.name)) WHERE \(conditions.joined(separator: " AND "))"
        let first = base + " ORDER BY \(keyList) LIMIT \(batch)"
        let next = base + " AND (\(keyList)) > (\(cursorList)) ORDER BY \(keyList) LIMIT \(batch)"
        var cursor: [SQLValue]?
        while true {
            let rows = if let cursor { try sqlite.query(next, fixed + cursor) } else { try sqlite.query(first, fixed) }
            if rows.isEmpty { return }
            try body(rows)
            if rows.count < batch { return }
            let last = rows[rows.count - 1]
            cursor = Array(last.values.suffix(keys.count))
        }
    }

    /// Identity columns were given explicit ids: their sequences must continue after the highest.
    private func advanceSequences(_ postgres: PostgresConnection) throws {
        for (table, column) in try DatabaseCopySchemas.postgresSequenceColumns(postgres) {
            _ = try postgres.query("""
                SELECT setval(pg_get_serial_sequence(?1, ?2), top) FROM (SELECT max(\(sqlIdentifier(column))) AS top FROM \(sqlIdentifier(table))) AS copied
                WHERE top IS NOT NULL
                """, [.text(table), .text(column)])
        }
    }

    /// Before COMMIT: each table holds what was read for it, and what was read is every row the
    /// snapshot keeps (a second count, independent of the batching).
    private func verify(_ reports: [TableReport], _ plan: DatabaseCopyPlan, _ sqlite: some SQLConnection,
                        _ postgres: PostgresConnection) throws {
        for (report, table) in zip(reports, plan.tables) {
            let written = try postgres.queryOne("SELECT count(*) AS n FROM \(sqlIdentifier(table.name))")?.int("n") ?? -1
            guard written == report.copied else { throw DatabaseCopyError.countMismatch(table: table.name, expected: report.copied, found: written) }
            let kept = try sqlite.queryOne("SELECT count(*) AS n FROM \(sqlIdentifier(table.name)) WHERE \(table.keep ?? "?1 IS NOT NULL")",
                                           [.integer(now)])?.int("n") ?? -1
            guard kept == report.copied else { throw DatabaseCopyError.countMismatch(table: table.name, expected: kept, found: report.copied) }
        }
    }

    /// An SQLite value as the twin column's type wants it; SQLite's loose typing is checked here
    /// rather than left to a PostgreSQL error that could not name the column.
    static func convert(_ value: SQLValue, to type: DatabaseCopyPlan.ColumnType, table: String, column: String) throws -> SQLValue {
        func refuse() -> DatabaseCopyError {
            .conversion(table: table, column: column, found: value.typeName, expected: "\(type)")
        }
        switch (type, value) {
        case (_, .null): return .null
        case (.integer, .integer): return value
        case (.integer, .real(let number)) where number.rounded() == number && abs(number) < 9.2e18: return .integer(Int64(number))
        case (.boolean, .integer(let number)): return .text(number != 0 ? "true" : "false")
        case (.real, .real): return value
        case (.real, .integer(let number)): return .real(Double(number))
        case (.text, .text): return value
        case (.text, .integer(let number)): return .text(String(number))
        case (.text, .real(let number)): return .text("\(number)")
        case (.text, .blob(let bytes)):
            guard let text = String(validating: bytes, as: UTF8.self) else { throw refuse() }
            return .text(text)
        case (.bytea, .blob): return value
        case (.bytea, .text(let text)): return .blob(Array(text.utf8))
        default: throw refuse()
        }
    }
}

/// A catalogue name as an SQL identifier (both backends quote with double quotes).
func sqlIdentifier(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
