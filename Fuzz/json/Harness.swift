// Fuzzes the strict JSON parser behind JSONValue(parsing:) (Sources/JOSE/JSONParser.swift),
// which reads every JOSE header, claim set and JSON request body (RFC 8259, RFC 7515 §4).
//
// Invariants: a refusal points inside the input; an accepted value nests at most
// JSONParser.maximumDepth deep; its canonical serialization (jsonBytes) parses back to the
// same value, compared exactly (bytes of strings, bit patterns of numbers), and serializing
// that again gives the same bytes.

@testable import JOSE

func fuzz(_ input: [UInt8]) {
    let value: JSONValue
    do {
        value = try JSONValue(parsing: input)
    } catch {
        invariant(error.offset >= 0 && error.offset <= input.count, "error offset \(error.offset) outside \(input.count) bytes")
        return
    }
    invariant(depth(value) <= JSONParser.maximumDepth, "nested \(depth(value)) deep")
    let serialized: [UInt8]
    do {
        serialized = try value.jsonBytes()
    } catch {
        invariant(false, "a parsed value does not serialize: \(error)")
        return
    }
    let reparsed: JSONValue
    do {
        reparsed = try JSONValue(parsing: serialized)
    } catch {
        invariant(false, "our serialization \(describe(serialized)) does not parse: \(error)")
        return
    }
    invariant(same(value, reparsed), "serialize/parse changed \(describe(input)) into \(describe(serialized))")
    invariant((try? reparsed.jsonBytes()) == serialized, "serialization is not a fixed point for \(describe(input))")
}

func depth(_ value: JSONValue) -> Int {
    switch value {
    case .array(let elements): 1 + (elements.map(depth).max() ?? 0)
    case .object(let members): 1 + (members.values.map(depth).max() ?? 0)
    default: 0
    }
}

/// Exact equality: `==` on String is canonical equivalence and on Double equates 0 and -0.
func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.string(let x), .string(let y)): Array(x.utf8) == Array(y.utf8)
    case (.integer(let x), .integer(let y)): x == y
    case (.number(let x), .number(let y)): x.bitPattern == y.bitPattern
    case (.bool(let x), .bool(let y)): x == y
    case (.null, .null): true
    case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy(same)
    case (.object(let x), .object(let y)):
        // Keys compare by their bytes too, in byte order on both sides.
        x.count == y.count && zip(sortedMembers(x), sortedMembers(y)).allSatisfy { left, right in
            Array(left.key.utf8) == Array(right.key.utf8) && same(left.value, right.value)
        }
    default: false
    }
}

func sortedMembers(_ members: [String: JSONValue]) -> [(key: String, value: JSONValue)] {
    members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
}
