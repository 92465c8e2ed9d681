import CSQLite

/// A prepared statement owned by one `Connection`, finalized in `deinit`.
///
/// Cached statements are reset and their bindings cleared after every use, so a
/// cached statement never holds a read snapshot open between calls.
final class Statement {
    let handle: OpaquePointer
    let sql: String
    /// The owning connection's handle, for error messages. The statement never outlives it:
    /// the connection finalizes its cache before closing.
    let db: OpaquePointer
    /// Result column names and their index, computed once: a cached statement's columns do not change
    /// (checked by count, in case a schema change re-prepared it).
    private var columnLayout: (names: [String], index: [String: Int])?

    init(handle: OpaquePointer, sql: String, db: OpaquePointer) {
        self.handle = handle
        self.sql = sql
        self.db = db
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds `values`, steps to completion collecting rows, then resets.
    func execute(_ values: [SQLValue]) throws -> [Row] {
        defer {
            // Reset even after an error: an unreset statement keeps its transaction snapshot.
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        try bind(values)
        var rows: [Row] = []
        while true {
            let result = sqlite3_step(handle)
            if result == SQLITE_DONE { return rows }
            guard result == SQLITE_ROW else {
                throw SQLiteError(resultCode: result, db: db, sql: sql)
            }
            let layout = currentLayout()
            rows.append(Row(columns: layout.names, indexByName: layout.index, values: currentValues()))
        }
    }

    private func currentLayout() -> (names: [String], index: [String: Int]) {
        if let layout = columnLayout, layout.names.count == Int(sqlite3_column_count(handle)) { return layout }
        let names = columnNames()
        let layout = (names: names, index: Row.index(names))
        columnLayout = layout
        return layout
    }

    private func bind(_ values: [SQLValue]) throws {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw SQLiteError.misuse("expected \(expected) bindings, got \(values.count)", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            let result = bindValue(value, at: Int32(offset + 1))
            guard result == SQLITE_OK else {
                throw SQLiteError(resultCode: result, db: db, sql: sql)
            }
        }
    }
}
