import PostgreSQL
import SQLite

/// Reads the table shapes `DatabaseCopyPlan` is made from, out of each backend's own catalogue.
enum DatabaseCopySchemas {
    /// SQLite's tables in creation order, with declared types and primary keys.
    static func sqlite(_ connection: some SQLConnection) throws -> [DatabaseCopyPlan.TableShape] {
        let names = try connection.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
            .map { try $0.string("name") }
        return try names.map { name in
            let columns = try connection.query("SELECT name, type, pk FROM pragma_table_info(?1) ORDER BY cid", [.text(name)])
            let key = try columns.filter { try $0.int("pk") > 0 }.sorted { try $0.int("pk") < $1.int("pk") }.map { try $0.string("name") }
            return DatabaseCopyPlan.TableShape(name: name, columns: try columns.map { (try $0.string("name"), try $0.string("type")) },
                                               keyColumns: key)
        }
    }

    /// The PostgreSQL tables of the current schema with their columns' `data_type`.
    static func postgres(_ connection: some SQLConnection) throws -> [DatabaseCopyPlan.TableShape] {
        let rows = try connection.query("""
            SELECT t.table_name AS table_name, c.column_name AS column_name, c.data_type AS data_type
            FROM information_schema.tables t
            JOIN information_schema.columns c ON c.table_schema = t.table_schema AND c.table_name = t.table_name
            WHERE t.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
            ORDER BY t.table_name, c.ordinal_position
            """)
        var order: [String] = []
        var columns: [String: [(name: String, type: String)]] = [:]
        for row in rows {
            let table = try row.string("table_name")
            if columns[table] == nil { order.append(table) }
            columns[table, default: []].append((try row.string("column_name"), try row.string("data_type")))
        }
        return order.map { DatabaseCopyPlan.TableShape(name: $0, columns: columns[$0]!) }
    }

    /// Every table of the current schema, columns or not (to tell a foreign database from ours).
    static func postgresTableNames(_ connection: some SQLConnection) throws -> [String] {
        try connection.query("""
            SELECT table_name FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name
            """).map { try $0.string("table_name") }
    }

    /// Foreign keys between tables of the current schema, by their first column.
    static func postgresForeignKeys(_ connection: some SQLConnection) throws -> [DatabaseCopyPlan.ForeignKey] {
        try connection.query("""
            SELECT cl.relname::text AS child, a.attname::text AS child_column, pl.relname::text AS parent,
                   pa.attname::text AS parent_column, (NOT a.attnotnull AND cardinality(c.conkey) = 1) AS nullable
            FROM pg_constraint c
            JOIN pg_class cl ON cl.oid = c.conrelid
            JOIN pg_class pl ON pl.oid = c.confrelid
            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
            JOIN pg_attribute pa ON pa.attrelid = c.confrelid AND pa.attnum = c.confkey[1]
            WHERE c.contype = 'f' AND cl.relnamespace = current_schema()::regnamespace
            ORDER BY 1, 2
            """).map {
            DatabaseCopyPlan.ForeignKey(child: try $0.string("child"), column: try $0.string("child_column"),
                                        parent: try $0.string("parent"), parentColumn: try $0.string("parent_column"),
                                        nullable: try $0.bool("nullable"))
        }
    }

    /// Columns whose values come from a sequence (identity or serial): the sequence must move past the copied ids.
    static func postgresSequenceColumns(_ connection: some SQLConnection) throws -> [(table: String, column: String)] {
        try connection.query("""
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND (is_identity = 'YES' OR column_default LIKE 'nextval(%')
            ORDER BY table_name, column_name
            """).map { (try $0.string("table_name"), try $0.string("column_name")) }
    }
}
