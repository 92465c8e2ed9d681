import FoundationEssentials

/// A JSON value, for JOSE headers and JWT claim sets.
///
/// Integers are kept apart from other numbers so that claims such as `exp`
/// serialise as `1700000000`, never `1700000000.0`.
public enum JSONValue: Sendable, Equatable, Codable {
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The string payload, if this is a string.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The integer payload, if this is an integer.
    public var integerValue: Int64? { if case .integer(let value) = self { value } else { nil } }
}

/// Compact, deterministic JSON for everything JOSE emits.
enum CanonicalJSON {
    /// Sorted keys make output stable (diffable JWKS, reproducible headers);
    /// unescaped slashes keep URLs in claims readable and byte-identical to
    /// what other libraries produce.
    static func encode(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// The fast path for claim sets and headers (see JSONValue+Serialization).
    static func encode(_ object: [String: JSONValue]) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        try JSONValue.appendObject(object, to: &out)
        return out
    }

    static func decodeObject(_ bytes: [UInt8]) -> [String: JSONValue]? {
        JSONValue.parseObject(bytes)
    }

    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try JSONDecoder().decode(type, from: Data(bytes))
    }
}
