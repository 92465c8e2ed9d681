/// The backends a store can run on, for the few statements whose SQL must differ.
///
/// Kept small on purpose: the PostgreSQL schema defines SQLite's `instr` and `group_concat`
/// (migration 0001) and both backends accept `INSERT … ON CONFLICT`, so most SQL is shared.
public enum SQLDialect: String, Sendable, Equatable {
    case sqlite
    case postgresql

    /// The larger of two non-NULL values: SQLite's two-argument `max`, PostgreSQL's `GREATEST`
    /// (which, unlike SQLite's, skips a NULL argument: callers pass non-NULL expressions only).
    public func greatest(_ first: String, _ second: String) -> String {
        switch self {
        case .sqlite: "max(\(first), \(second))"
        case .postgresql: "GREATEST(\(first), \(second))"
        }
    }

    /// The smaller of two non-NULL values (`min` / `LEAST`), as `greatest`.
    public func least(_ first: String, _ second: String) -> String {
        switch self {
        case .sqlite: "min(\(first), \(second))"
        case .postgresql: "LEAST(\(first), \(second))"
        }
    }

    /// Whether text `column` starts with parameter `parameter` (e.g. `?1`). SQLite: a range on the
    /// column's index (keys are ASCII below DEL). PostgreSQL: `starts_with`, a scan, because a range
    /// would follow the database's collation, which need not sort by code point.
    public func hasPrefix(_ column: String, _ parameter: String) -> String {
        switch self {
        case .sqlite: "(\(column) >= \(parameter) AND \(column) < \(parameter) || char(127))"
        case .postgresql: "starts_with(\(column), \(parameter))"
        }
    }

    /// The expression that removes a key from a JSON object held in a text column.
    public func jsonRemovingKey(_ column: String, key: String) -> String {
        switch self {
        case .sqlite: "json_remove(\(column), '$.\(key)')"
        case .postgresql: "(\(column)::jsonb - '\(key)')::text"
        }
    }
}
