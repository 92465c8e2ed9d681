import Foundation
import Testing
@testable import JOSE

/// The direct JSON path tokens use: canonical output and a faithful parse.
@Suite struct JSONValueSerializationTests {
    @Test(arguments: [
        (JSONValue.object(["b": .integer(1), "a": .string("x/y")]), #"{"a":"x/y","b":1}"#),
        (.object(["q": .string("say \"hi\"\n\\ \u{01}")]), #"{"q":"say \"hi\"\n\\ \u0001"}"#),
        (.object(["n": .null, "t": .bool(true), "f": .bool(false), "d": .number(1.5)]), #"{"d":1.5,"f":false,"n":null,"t":true}"#),
        (.object(["arr": .array([.integer(-3), .string("é")])]), #"{"arr":[-3,"é"]}"#),
        (.object(["Z": .integer(1), "a": .integer(2), "_": .integer(3)]), #"{"Z":1,"_":3,"a":2}"#),
    ])
    func writesCompactSortedJSON(value: JSONValue, expected: String) throws {
        #expect(String(decoding: try value.jsonBytes(), as: UTF8.self) == expected)
    }

    /// Keys sort by their UTF-8 bytes: a prefix first, upper case before lower, and multi-byte
    /// characters after ASCII in code-point order (`é` U+00E9 before `中` U+4E2D before an emoji).
    @Test(arguments: [
        ("a", "b", true), ("b", "a", false), ("a", "a", false), ("", "a", true), ("a", "", false), ("", "", false),
        ("exp", "expires", true), ("expires", "exp", false), ("Z", "a", true), ("_", "a", true), ("a", "é", true),
        ("é", "中", true), ("中", "😀", true), ("😀", "中", false), ("aé", "a中", true),
    ])
    func keysSortByUTF8Bytes(lhs: String, rhs: String, precedes: Bool) {
        #expect(JSONValue.precedes(lhs, rhs) == precedes)
        #expect(JSONValue.precedes(lhs, rhs) == lhs.utf8.lexicographicallyPrecedes(rhs.utf8))
    }

    /// Members listed in byte order give the bytes the dictionary path gives; out of order or
    /// repeated, they are a programming error (a precondition), never wrong JSON.
    @Test func orderedMembersGiveTheSameBytesAsAnObject() throws {
        let members: [(name: String, value: JSONValue)] = [("access_token", .string("at_x/y")), ("expires_in", .integer(86_400)),
                                                           ("id_token", .string("a.b.c")), ("scope", .string("openid \"x\"")),
                                                           ("token_type", .string("Bearer"))]
        let object = JSONValue.object(Dictionary(uniqueKeysWithValues: members.map { ($0.name, $0.value) }))
        #expect(try JSONValue.jsonBytes(orderedMembers: members) == object.jsonBytes())
        #expect(try JSONValue.jsonBytes(orderedMembers: []) == Array("{}".utf8))
    }

    @Test func theSameBytesAsJSONEncoderWithCanonicalOptions() throws {
        let claims: [String: JSONValue] = ["iss": .string("https://id.example.com/"), "aud": .array([.string("a"), .string("b")]),
                                           "exp": .integer(1_800_000_000), "email_verified": .bool(true), "name": .string("Ada <Lovelace>")]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(try CanonicalJSON.encode(claims) == Array(try encoder.encode(claims)))
    }

    @Test func nonFiniteNumbersAreRefused() {
        #expect(throws: (any Error).self) { try JSONValue.number(.infinity).jsonBytes() }
    }

    @Test(arguments: [#"{"a":1,"b":"x","c":true,"d":null,"e":[1,2.5],"f":{"g":false}}"#])
    func parsesObjectsFaithfully(text: String) throws {
        let parsed = try #require(JSONValue.parseObject(Array(text.utf8)))
        #expect(parsed["a"] == .integer(1) && parsed["b"] == .string("x") && parsed["c"] == .bool(true) && parsed["d"] == .null)
        #expect(parsed["e"] == .array([.integer(1), .number(2.5)]))
        #expect(parsed["f"] == .object(["g": .bool(false)]))
    }

    @Test(arguments: ["[1,2]", "\"text\"", "{\"a\":", "{'a':1}", "{\"a\":NaN}", ""])
    func refusesNonObjectsAndInvalidJSON(text: String) {
        #expect(JSONValue.parseObject(Array(text.utf8)) == nil)
    }
}
