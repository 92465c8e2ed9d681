/// Ordered header fields with case-insensitive lookup; duplicates are kept in arrival order.
public struct HTTPHeaders: Sendable, Sequence {
    private var fields: [(name: String, value: String)]

    public init() { fields = [] }

    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { (name: $0.0, value: $0.1) }
    }

    /// Number of fields, counting duplicates.
    public var count: Int { fields.count }

    /// The first value for `name`, if any.
    public subscript(name: String) -> String? {
        for field in fields where Self.same(field.name, name) { return field.value }
        return nil
    }

    /// Every value for `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// Whether at least one field is named `name`.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field named `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.same($0.name, name) }
    }

    public func makeIterator() -> some IteratorProtocol<(String, String)> {
        fields.lazy.map { ($0.name, $0.value) }.makeIterator()
    }

    /// ASCII case-insensitive comparison; header names are ASCII tokens, so no Unicode folding is needed.
    static func same(_ lhs: String, _ rhs: String) -> Bool {
        // Most names compared differ in length: decided without reading a byte.
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        if let equal = lhs.utf8.withContiguousStorageIfAvailable({ left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                for index in 0..<left.count where left[index] != right[index] && ASCII.lower(left[index]) != ASCII.lower(right[index]) {
                    return false
                }
                return true
            }
        }), let equal { return equal }
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let a?, let b?):
                if a != b && ASCII.lower(a) != ASCII.lower(b) { return false }
            default: return false
            }
        }
    }
}
