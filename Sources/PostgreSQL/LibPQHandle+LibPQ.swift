internal import CLibPQLoader
import Glibc

/// The `PGconn*` and every libpq call: the only unsafe code of the PostgreSQL backend.
///
/// Parameters go as text, except blobs (binary `bytea`); results come back as text and
/// are decoded by column type (`PostgresText`).
final class LibPQHandle {
    private var connection: OpaquePointer?

    init(parameters: [(String, String)]) throws(PostgresError) {
        try LibPQ.load()
        let keys = parameters.map { strdup($0.0) } + [nil]
        let values = parameters.map { strdup($0.1) } + [nil]
        defer {
            keys.forEach { free($0) }
            values.forEach { free($0) }
        }
        let connection: OpaquePointer? = keys.map { UnsafePointer($0) }.withUnsafeBufferPointer { keyPointers in
            values.map { UnsafePointer($0) }.withUnsafeBufferPointer { valuePointers in
                gh_PQconnectdbParams(keyPointers.baseAddress, valuePointers.baseAddress, 1)
            }
        }
        guard let connection, gh_PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { Self.trimmed(gh_PQerrorMessage($0)) } ?? "out of memory"
            gh_PQfinish(connection)
            throw .connection("cannot connect to PostgreSQL: \(message)")
        }
        self.connection = connection
    }

    deinit { close() }

    func close() {
        if let connection { gh_PQfinish(connection) }
        connection = nil
    }

    var isConnected: Bool { connection.map { gh_PQstatus($0) == CONNECTION_OK } ?? false }

    var isInTransaction: Bool {
        guard let connection else { return false }
        let status = gh_PQtransactionStatus(connection)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// A script of statements without parameters (simple query protocol).
    func execute(_ sql: String) throws(PostgresError) {
        let connection = try open(sql)
        let result = gh_PQexec(connection, sql)
        defer { gh_PQclear(result) }
        try check(result, sql: sql)
    }

    /// One statement with `$N` parameters.
    func execute(_ sql: String, _ bindings: [SQLValue]) throws(PostgresError) -> (rows: [Row], changed: Int) {
        let connection = try open(sql)
        var types: [Oid] = []
        var formats: [Int32] = []
        var lengths: [Int32] = []
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        defer { buffers.forEach { free($0) } }
        for value in bindings {
            switch value {
            case .null:
                types.append(0); formats.append(0); lengths.append(0); buffers.append(nil)
            case .integer(let number):
                types.append(20); formats.append(0); lengths.append(0); buffers.append(strdup(String(number)))
            case .real(let number):
                types.append(701); formats.append(0); lengths.append(0); buffers.append(strdup("\(number)"))
            case .text(let text):
                types.append(25); formats.append(0); lengths.append(0); buffers.append(strdup(text))
            case .blob(let bytes):
                let buffer = malloc(max(1, bytes.count))!.assumingMemoryBound(to: CChar.self)
                bytes.withUnsafeBytes { raw in
                    if let base = raw.baseAddress { memcpy(buffer, base, bytes.count) }
                }
                types.append(17); formats.append(1); lengths.append(Int32(bytes.count)); buffers.append(buffer)
            }
        }
        let result = buffers.map { UnsafePointer($0) }.withUnsafeBufferPointer { pointers in
            gh_PQexecParams(connection, sql, Int32(bindings.count), types, pointers.baseAddress, lengths, formats, 0)
        }
        defer { gh_PQclear(result) }
        try check(result, sql: sql)
        return (rows(result!), Int(String(cString: gh_PQcmdTuples(result))) ?? 0)
    }

    private func open(_ sql: String) throws(PostgresError) -> OpaquePointer {
        guard let connection else { throw .connection("connection is closed") }
        return connection
    }

    private func check(_ result: OpaquePointer?, sql: String) throws(PostgresError) {
        let status = result.map { gh_PQresultStatus($0) } ?? PGRES_FATAL_ERROR
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY { return }
        var state = result.flatMap { gh_PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) } ?? ""
        var message = result.flatMap { gh_PQresultErrorField($0, Int32(UInt8(ascii: "M"))) }.map { String(cString: $0) }
            ?? connection.map { Self.trimmed(gh_PQerrorMessage($0)) } ?? "no result"
        // libpq reports a lost server without SQLSTATE; the connection's status says so.
        if state.isEmpty || connection.map({ gh_PQstatus($0) != CONNECTION_OK }) == true {
            if state.isEmpty || !state.hasPrefix("57") { state = "08006" }
            if message.isEmpty { message = "connection to PostgreSQL lost" }
        }
        throw PostgresError(sqlState: state, message: message, sql: sql)
    }

    private func rows(_ result: OpaquePointer) -> [Row] {
        let rowCount = Int(gh_PQntuples(result))
        let columnCount = Int(gh_PQnfields(result))
        guard rowCount > 0 else { return [] }
        let names = (0..<columnCount).map { String(cString: gh_PQfname(result, Int32($0))) }
        let types = (0..<columnCount).map { gh_PQftype(result, Int32($0)) }
        let index = Row.index(names)
        var rows: [Row] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<Int32(rowCount) {
            var values: [SQLValue] = []
            values.reserveCapacity(columnCount)
            for column in 0..<Int32(columnCount) {
                if gh_PQgetisnull(result, row, column) == 1 {
                    values.append(.null)
                    continue
                }
                let length = Int(gh_PQgetlength(result, row, column))
                let text = gh_PQgetvalue(result, row, column)!.withMemoryRebound(to: UInt8.self, capacity: length) {
                    UnsafeBufferPointer(start: $0, count: length)
                }
                values.append(PostgresText.decode(text, type: types[Int(column)]))
            }
            rows.append(Row(columns: names, indexByName: index, values: values))
        }
        return rows
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "" }
        var text = String(cString: message)
        while text.last == "\n" || text.last == " " { text.removeLast() }
        return text
    }
}
