import Testing
@testable import JOSE

/// `JSONValue(parsing:)`: strict RFC 8259, repeated member names refused.
@Suite struct JSONParserTests {
    struct Valid: CustomTestStringConvertible, Sendable {
        let text: String
        let value: JSONValue
        var testDescription: String { text }
        init(_ text: String, _ value: JSONValue) {
            self.text = text
            self.value = value
        }
    }

    @Test(arguments: [
        // Scalars at the top level (RFC 8259 allows them) and whitespace around them.
        Valid("true", .bool(true)),
        Valid("false", .bool(false)),
        Valid("null", .null),
        Valid(" \t\r\n\"x\" \n", .string("x")),
        // Numbers: integers stay integers; whole numbers below 9e15 become integers, as with JSONSerialization.
        Valid("0", .integer(0)),
        Valid("-0", .integer(0)),
        Valid("1700000000", .integer(1_700_000_000)),
        Valid("-42", .integer(-42)),
        Valid("9223372036854775807", .integer(.max)),
        Valid("-9223372036854775808", .integer(.min)),
        Valid("9223372036854775808", .number(9_223_372_036_854_775_808)),
        Valid("1.0", .integer(1)),
        Valid("1e3", .integer(1000)),
        Valid("2.5", .number(2.5)),
        Valid("-0.125", .number(-0.125)),
        Valid("1E-2", .number(0.01)),
        Valid("6.02e+23", .number(6.02e23)),
        Valid("9e15", .number(9e15)),
        // Strings and escapes.
        Valid(#""""#, .string("")),
        Valid(#""\"\\\/\b\f\n\r\t""#, .string("\"\\/\u{08}\u{0C}\n\r\t")),
        Valid(#""\u0041\u00e9\u20AC""#, .string("Aé€")),
        Valid(#""\u0000""#, .string("\u{0}")),
        Valid(#""\ud83d\ude00""#, .string("😀")),
        Valid(#""\uD834\uDD1E clef""#, .string("𝄞 clef")),
        Valid("\"é😀 raw UTF-8\"", .string("é😀 raw UTF-8")),
        Valid("\"\u{7F}\"", .string("\u{7F}")),
        // Containers.
        Valid("[]", .array([])),
        Valid("{}", .object([:])),
        Valid("[1, \"a\", null, [true], {}]", .array([.integer(1), .string("a"), .null, .array([.bool(true)]), .object([:])])),
        Valid(#"{"a":{"b":{"c":[1,2.5]}}}"#, .object(["a": .object(["b": .object(["c": .array([.integer(1), .number(2.5)])])])])),
        Valid(#" { "k" : "v" , "n" : -1 } "#, .object(["k": .string("v"), "n": .integer(-1)])),
        Valid(#"{"A":1,"a":2}"#, .object(["A": .integer(1), "a": .integer(2)])),
    ])
    func parses(_ valid: Valid) throws {
        #expect(try JSONValue(parsing: Array(valid.text.utf8)) == valid.value)
    }

    @Test(arguments: [
        ("", "empty input"),
        ("   ", "only whitespace"),
        ("[1,2,]", "trailing comma in an array"),
        (#"{"a":1,}"#, "trailing comma in an object"),
        ("[,1]", "leading comma"),
        ("[1 2]", "missing comma"),
        (#"{"a" 1}"#, "missing colon"),
        ("{a:1}", "unquoted name"),
        ("{'a':1}", "single quotes"),
        ("{1:1}", "number as a name"),
        ("[1]]", "extra bracket"),
        ("[1", "unterminated array"),
        (#"{"a":1"#, "unterminated object"),
        (#""abc"#, "unterminated string"),
        ("{} x", "trailing garbage"),
        ("1 2", "two values"),
        ("01", "leading zero"),
        ("-01", "leading zero after minus"),
        ("00", "double zero"),
        ("+1", "plus sign"),
        (".5", "no integer part"),
        ("1.", "no fraction digits"),
        ("1e", "no exponent digits"),
        ("1e+", "no exponent digits after sign"),
        ("-", "lone minus"),
        ("0x10", "hex"),
        ("1e400", "overflow to infinity"),
        ("NaN", "NaN"),
        ("Infinity", "Infinity"),
        ("tru", "truncated literal"),
        ("True", "capitalised literal"),
        ("nul", "truncated null"),
        ("\"a\u{01}b\"", "raw control character"),
        ("\"tab\there\"", "raw tab"),
        ("\"line\nbreak\"", "raw newline"),
        (#""\x41""#, "unknown escape"),
        (#""\u12""#, "short unicode escape"),
        (#""\u12G4""#, "bad hex digit"),
        (#""\ud83d""#, "lone high surrogate"),
        (#""\ud83d x""#, "high surrogate followed by text"),
        (#""\ud83d\u0041""#, "high surrogate followed by a non-surrogate"),
        (#""\ud83d\ud83d""#, "two high surrogates"),
        (#""\ude00""#, "lone low surrogate"),
        ("/* c */ 1", "comment"),
        ("\u{FEFF}{}", "byte order mark"),
        (#"{"a":1,"a":2}"#, "repeated member"),
        (#"{"alg":"RS256","\u0061lg":"none"}"#, "repeated member spelled with an escape"),
        (#"[{"x":{"y":1,"y":1}}]"#, "repeated member deep inside"),
    ])
    func refuses(text: String, why: String) {
        #expect(throws: JSONParseError.self, "\(why)") { try JSONValue(parsing: Array(text.utf8)) }
    }

    @Test(arguments: [
        [0x22, 0xC3, 0x22] as [UInt8],        // truncated two-byte sequence
        [0x22, 0xFF, 0x22],                   // never valid in UTF-8
        [0x22, 0xED, 0xA0, 0x80, 0x22],       // a surrogate encoded directly
        [0x22, 0xC0, 0xAF, 0x22],             // overlong "/"
        [0x22, 0x5C, 0x6E, 0xC3, 0x22],       // invalid after an escape
    ])
    func refusesInvalidUTF8(bytes: [UInt8]) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: bytes) }
    }

    @Test func nestingIsBoundedSoHostileInputCannotExhaustTheStack() throws {
        let limit = JSONParser.maximumDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(throws: Never.self) { try JSONValue(parsing: Array(deepest.utf8)) }
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Array(tooDeep.utf8)) }
        let objects = String(repeating: #"{"a":"#, count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Array(objects.utf8)) }
        let hostile = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Array(hostile.utf8)) }
    }

    @Test func errorsSayWhereAndWhy() {
        #expect(throws: JSONParseError(offset: 7, reason: "expected a member name")) {
            try JSONValue(parsing: Array(#"{"a":1,}"#.utf8))
        }
        #expect(throws: JSONParseError(offset: 7, reason: "repeated member name")) {
            try JSONValue(parsing: Array(#"{"a":1,"a":2}"#.utf8))
        }
    }

    /// What the token path writes, the parser reads back unchanged.
    @Test func roundTripsWhatJSONValueWrites() throws {
        let value = JSONValue.object([
            "iss": .string("https://id.example.com/"), "exp": .integer(1_800_000_000), "ratio": .number(0.25),
            "aud": .array([.string("a"), .string("b")]), "ok": .bool(true), "none": .null,
            "text": .string("quote \" backslash \\ newline \n control \u{01} emoji 😀"),
            "nested": .object(["deep": .array([.object(["x": .integer(-1)])])]),
        ])
        #expect(try JSONValue(parsing: try value.jsonBytes()) == value)
    }
}
