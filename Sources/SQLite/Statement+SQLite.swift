import CSQLite

// Pointer-level binding and column reading, kept apart from the control flow in Statement.swift.
extension Statement {
    func bindValue(_ value: SQLValue, at index: Int32) -> Int32 {
        switch value {
        case .null:
            return sqlite3_bind_null(handle, index)
        case .integer(let number):
            return sqlite3_bind_int64(handle, index, number)
        case .real(let number):
            return sqlite3_bind_double(handle, index, number)
        case .text(var text):
            // Explicit length, so text containing NUL bytes is stored whole.
            return text.withUTF8 { bytes in
                guard let base = bytes.baseAddress, bytes.count > 0 else {
                    // A NULL pointer would bind SQL NULL; empty text must stay text.
                    return gh_sqlite3_bind_text_transient(handle, index, "", 0)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    gh_sqlite3_bind_text_transient(handle, index, $0, Int32(bytes.count))
                }
            }
        case .blob(let bytes):
            if bytes.isEmpty {
                // A NULL pointer would bind SQL NULL; an empty blob is a zero-length blob.
                return sqlite3_bind_zeroblob(handle, index, 0)
            }
            return bytes.withUnsafeBytes {
                gh_sqlite3_bind_blob_transient(handle, index, $0.baseAddress, Int32($0.count))
            }
        }
    }

    func columnNames() -> [String] {
        (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
    }

    func currentValues() -> [SQLValue] {
        (0..<sqlite3_column_count(handle)).map(columnValue)
    }

    private func columnValue(_ index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            // Read by length, not up to the first NUL.
            // column_text before column_bytes, as SQLite documents, so the length matches the pointer.
            let pointer = sqlite3_column_text(handle, index)
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let pointer else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let pointer = sqlite3_column_blob(handle, index)
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let pointer else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default:
            return .null
        }
    }
}
