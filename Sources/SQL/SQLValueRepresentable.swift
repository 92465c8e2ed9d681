/// A Swift type that converts to and from an `SQLValue`.
///
/// `Optional` conforms when its wrapped type does, mapping `nil` to `NULL`, so
/// `let email: String? = try row.get("email")` reads a nullable column.
public protocol SQLValueRepresentable: Sendable {
    /// The value to bind.
    var sqlValue: SQLValue { get }
    /// The decoded value, or nil when `value` has the wrong storage class.
    static func decode(_ value: SQLValue) -> Self?
}

extension String: SQLValueRepresentable {
    @inlinable public var sqlValue: SQLValue { .text(self) }
    @inlinable public static func decode(_ value: SQLValue) -> String? {
        if case .text(let text) = value { return text }
        return nil
    }
}

extension Int64: SQLValueRepresentable {
    @inlinable public var sqlValue: SQLValue { .integer(self) }
    @inlinable public static func decode(_ value: SQLValue) -> Int64? {
        if case .integer(let number) = value { return number }
        return nil
    }
}

extension Int: SQLValueRepresentable {
    @inlinable public var sqlValue: SQLValue { .integer(Int64(self)) }
    @inlinable public static func decode(_ value: SQLValue) -> Int? {
        if case .integer(let number) = value { return Int(exactly: number) }
        return nil
    }
}

extension Bool: SQLValueRepresentable {
    @inlinable public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
    /// Only 0 and 1 decode: anything else is a sign of a wrong column.
    @inlinable public static func decode(_ value: SQLValue) -> Bool? {
        switch value {
        case .integer(0): false
        case .integer(1): true
        default: nil
        }
    }
}

extension Double: SQLValueRepresentable {
    @inlinable public var sqlValue: SQLValue { .real(self) }
    /// Integers decode too: SQLite may hand back an integral REAL as INTEGER in expressions.
    @inlinable public static func decode(_ value: SQLValue) -> Double? {
        switch value {
        case .real(let number): number
        case .integer(let number): Double(number)
        default: nil
        }
    }
}

extension Array: SQLValueRepresentable where Element == UInt8 {
    @inlinable public var sqlValue: SQLValue { .blob(self) }
    @inlinable public static func decode(_ value: SQLValue) -> [UInt8]? {
        if case .blob(let bytes) = value { return bytes }
        return nil
    }
}

extension SQLValue: SQLValueRepresentable {
    @inlinable public var sqlValue: SQLValue { self }
    @inlinable public static func decode(_ value: SQLValue) -> SQLValue? { value }
}

extension Optional: SQLValueRepresentable where Wrapped: SQLValueRepresentable {
    @inlinable public var sqlValue: SQLValue { self?.sqlValue ?? .null }
    /// `.some(nil)` for NULL, `nil` for a wrong storage class.
    @inlinable public static func decode(_ value: SQLValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.decode(value).map { .some($0) }
    }
}
