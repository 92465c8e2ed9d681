/// Turns a result value in PostgreSQL's text format into an `SQLValue`, by the column's type OID.
///
/// Integers (and booleans, as 0/1, as SQLite stores them) become `.integer`, floats `.real`,
/// `bytea` (hex format, `\x…`) `.blob`; everything else is `.text`.
enum PostgresText {
    static let bool: UInt32 = 16, bytea: UInt32 = 17, int8: UInt32 = 20, int2: UInt32 = 21, int4: UInt32 = 23,
               oid: UInt32 = 26, float4: UInt32 = 700, float8: UInt32 = 701, numeric: UInt32 = 1700

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, type: UInt32) -> SQLValue {
        let text = String(decoding: bytes, as: UTF8.self)
        switch type {
        case int8, int2, int4, oid:
            return Int64(text).map(SQLValue.integer) ?? .text(text)
        case bool:
            return .integer(text == "t" ? 1 : 0)
        case float4, float8:
            return Double(text).map(SQLValue.real) ?? .text(text)
        case numeric:
            // SUM() and AVG() over integers answer numeric: integral values read as integers.
            if let integer = Int64(text) { return .integer(integer) }
            return Double(text).map(SQLValue.real) ?? .text(text)
        case bytea:
            return hex(bytes).map(SQLValue.blob) ?? .text(text)
        default:
            return .text(text)
        }
    }

    /// `\x0aff…` → bytes; nil when malformed.
    static func hex(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"), bytes.count % 2 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count - 2) / 2)
        var index = 2
        while index < bytes.count {
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
            output.append(high << 4 | low)
            index += 2
        }
        return output
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
