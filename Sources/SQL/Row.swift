/// One result row: values by column index or name, with typed getters that throw on a
/// missing column or a wrong storage class instead of guessing.
public struct Row: Sendable, Equatable {
    /// Column names in result order, shared by every row of one query.
    public let columns: [String]
    /// Values in column order.
    public let values: [SQLValue]
    /// Positions by name, for rows wider than `position(of:)` searches in order. Visible to the
    /// inlinable accessors: the stores, in other modules, then specialise `get` for the types they
    /// read instead of looking up `Optional<T>`'s metadata at run time for every column.
    @usableFromInline let indexByName: [String: Int]

    package init(columns: [String], indexByName: [String: Int], values: [SQLValue]) {
        self.columns = columns
        self.indexByName = indexByName
        self.values = values
    }

    /// A row built by hand (tests, fakes).
    public init(_ pairs: KeyValuePairs<String, SQLValue>) {
        let columns = pairs.map(\.key)
        self.init(columns: columns, indexByName: Row.index(columns), values: pairs.map(\.value))
    }

    /// First index wins for duplicate names, as in `SELECT a.id, b.id`.
    package static func index(_ columns: [String]) -> [String: Int] {
        var index: [String: Int] = [:]
        for (position, name) in columns.enumerated() where index[name] == nil {
            index[name] = position
        }
        return index
    }

    public static func == (lhs: Row, rhs: Row) -> Bool {
        lhs.columns == rhs.columns && lhs.values == rhs.values
    }

    /// The raw value, or nil when there is no such column.
    @inlinable
    public subscript(_ column: String) -> SQLValue? {
        position(of: column).map { values[$0] }
    }

    /// Where `column` is (the first of equal names). A row of a few columns is searched in order:
    /// most names differ in length, and comparing them costs less than hashing the one asked for.
    @inlinable
    func position(of column: String) -> Int? {
        guard columns.count <= 24 else { return indexByName[column] }
        for position in columns.indices where columns[position] == column { return position }
        return nil
    }

    /// The raw value, or nil when the index is out of range.
    public subscript(_ index: Int) -> SQLValue? {
        values.indices.contains(index) ? values[index] : nil
    }

    /// The value of `column` decoded as `T`; use an Optional `T` for nullable columns.
    @inlinable
    public func get<T: SQLValueRepresentable>(_ column: String, as type: T.Type = T.self) throws(RowError) -> T {
        guard let index = position(of: column) else {
            throw .noSuchColumn(column, available: columns)
        }
        return try decode(values[index], column: column)
    }

    /// The value at `index` decoded as `T`.
    @inlinable
    public func get<T: SQLValueRepresentable>(_ index: Int, as type: T.Type = T.self) throws(RowError) -> T {
        guard values.indices.contains(index) else {
            throw .noSuchColumn("#\(index)", available: columns)
        }
        return try decode(values[index], column: columns[index])
    }

    @inlinable
    func decode<T: SQLValueRepresentable>(_ value: SQLValue, column: String) throws(RowError) -> T {
        guard let decoded = T.decode(value) else {
            throw .typeMismatch(column: column, expected: String(describing: T.self), found: value.typeName)
        }
        return decoded
    }

    @inlinable public func string(_ column: String) throws(RowError) -> String { try get(column) }
    @inlinable public func int64(_ column: String) throws(RowError) -> Int64 { try get(column) }
    @inlinable public func int(_ column: String) throws(RowError) -> Int { try get(column) }
    @inlinable public func bool(_ column: String) throws(RowError) -> Bool { try get(column) }
    @inlinable public func double(_ column: String) throws(RowError) -> Double { try get(column) }
    @inlinable public func blob(_ column: String) throws(RowError) -> [UInt8] { try get(column) }

    public func string(_ index: Int) throws(RowError) -> String { try get(index) }
    public func int64(_ index: Int) throws(RowError) -> Int64 { try get(index) }
    public func int(_ index: Int) throws(RowError) -> Int { try get(index) }
    public func bool(_ index: Int) throws(RowError) -> Bool { try get(index) }
    public func double(_ index: Int) throws(RowError) -> Double { try get(index) }
    public func blob(_ index: Int) throws(RowError) -> [UInt8] { try get(index) }

    /// Whether the column holds NULL; throws when there is no such column.
    public func isNull(_ column: String) throws(RowError) -> Bool {
        guard let value = self[column] else { throw .noSuchColumn(column, available: columns) }
        return value == .null
    }

    public func isNull(_ index: Int) throws(RowError) -> Bool {
        guard let value = self[index] else { throw .noSuchColumn("#\(index)", available: columns) }
        return value == .null
    }
}

/// Reading a row failed: a programming error in the query or the mapping code.
public enum RowError: Error, Sendable, Equatable, CustomStringConvertible {
    case noSuchColumn(String, available: [String])
    /// `found` is the storage class, never the value, which may be a secret.
    case typeMismatch(column: String, expected: String, found: String)

    public var description: String {
        switch self {
        case .noSuchColumn(let column, let available):
            "no column \"\(column)\" in row (columns: \(available.joined(separator: ", ")))"
        case .typeMismatch(let column, let expected, let found):
            "column \"\(column)\" holds \(found), cannot read it as \(expected)"
        }
    }
}
