// Direct JSON for the token hot path. Tokens and token responses are small objects of
// `JSONValue`; going through Codable (JSONEncoder/JSONDecoder) costs more than signing them
// with ES256. Output rules match `CanonicalJSON`: compact, keys sorted, `/` unescaped.

extension JSONValue {
    /// Compact JSON with keys sorted (by their UTF-8 bytes) and slashes unescaped.
    /// Throws for a non-finite number, which JSON cannot express.
    public func jsonBytes() throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        try append(to: &out)
        return out
    }

    /// Compact JSON of an object whose members the caller lists already in byte order (a fixed
    /// shape, such as a JWS header or a token response): the bytes `.object(...).jsonBytes()`
    /// gives for the same members, without building a dictionary and sorting it on every response.
    public static func jsonBytes(orderedMembers members: [(name: String, value: JSONValue)]) throws -> [UInt8] {
        precondition(zip(members, members.dropFirst()).allSatisfy { precedes($0.name, $1.name) },
                     "members must be distinct and in byte order")
        var out: [UInt8] = []
        out.reserveCapacity(256)
        try appendMembers(members.lazy.map { ($0.name, $0.value) }, to: &out)
        return out
    }

    /// `{"name":value,...}` in the order given.
    static func appendMembers(_ members: some Sequence<(String, JSONValue)>, to out: inout [UInt8]) throws {
        out.append(UInt8(ascii: "{"))
        for (index, (name, value)) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(name, to: &out)
            out.append(UInt8(ascii: ":"))
            try value.append(to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    func append(to out: inout [UInt8]) throws {
        switch self {
        case .string(let text): Self.appendString(text, to: &out)
        case .integer(let number): out.append(contentsOf: String(number).utf8)
        case .number(let number):
            guard number.isFinite else { throw EncodingError.invalidValue(number, .init(codingPath: [], debugDescription: "non-finite number")) }
            out.append(contentsOf: String(number).utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                try value.append(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            try Self.appendObject(members, to: &out)
        }
    }

    static func appendObject(_ members: [String: JSONValue], to out: inout [UInt8]) throws {
        // Sorted by UTF-8 bytes, compared in place (no copies of the keys).
        try appendMembers(members.sorted { precedes($0.key, $1.key) }.lazy.map { ($0.key, $0.value) }, to: &out)
    }

    /// Whether `lhs` sorts before `rhs` by UTF-8 bytes, compared in native strings' storage
    /// (through `UTF8View` iterators the sort of a token's claims showed in profiles).
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        let ordered = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right -> Bool in
                for index in 0..<min(left.count, right.count) where left[index] != right[index] {
                    return left[index] < right[index]
                }
                return left.count < right.count
            }
        }
        return (ordered ?? nil) ?? lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most claim values need no escaping: copy them whole. Scanned as one contiguous buffer: the
        // tokens in a token response (an ID token is ~1 KB) cost several times more through UTF8View.
        var copy = text
        let plain = copy.withUTF8 { bytes in
            for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain {
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(0x5C); out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
            case 0x08: out.append(0x5C); out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(0x5C); out.append(UInt8(ascii: "f"))
            case 0..<0x20:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// Parses a JSON object (see `init(parsing:)`: strict, repeated member names refused); nil otherwise.
    static func parseObject(_ bytes: [UInt8]) -> [String: JSONValue]? {
        guard case .object(let members)? = try? JSONValue(parsing: bytes) else { return nil }
        return members
    }
}
