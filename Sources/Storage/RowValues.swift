import FoundationEssentials
import SQLite

// Small conversions shared by the record stores: times are Unix seconds, nullable
// columns map to optionals.

extension SQLValue {
    /// A time as Unix seconds.
    init(date: Date) { self = .integer(Int64(date.timeIntervalSince1970)) }

    /// `.integer` Unix seconds for a time, `.null` for nil.
    init(optionalDate date: Date?) { self = date.map { SQLValue(date: $0) } ?? .null }

    /// `1` or `0`.
    init(flag: Bool) { self = .integer(flag ? 1 : 0) }
}

extension Row {
    func date(_ column: String) throws -> Date {
        Date(timeIntervalSince1970: TimeInterval(try int64(column)))
    }

    func optionalDate(_ column: String) throws -> Date? {
        try get(column, as: Int64?.self).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    func optionalString(_ column: String) throws -> String? {
        try get(column, as: String?.self)
    }

    func flag(_ column: String) throws -> Bool {
        try int64(column) != 0
    }
}
