/// The backends a store can run on, for the few statements whose SQL must differ.
///
/// Kept small on purpose: the PostgreSQL schema defines SQLite's `instr` and `group_concat`
/// (migration 0001) and both backends accept `INSERT … ON CONFLICT`, so most SQL is shared.
public enum SQLDialect: String, Sendable, Equatable {
    case sqlite
    case postgresql

    /// The expression that removes a key from a JSON object held in a text column.
    public func jsonRemovingKey(_ column: String, key: String) -> String {
        switch self {
        case .sqlite: "json_remove(\(column), '$.\(key)')"
        case .postgresql: "(\(column)::jsonb - '\(key)')::text"
        }
    }
}
