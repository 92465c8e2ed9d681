import Testing
@testable import Storage

/// The `[String: String]` column text: "{}" skips the decoder, everything else goes through it.
@Suite struct StringMapJSONTests {
    @Test(arguments: [
        ("{}", [:]),
        (" {} ", [:]),
        ("{\"a\":\"b\"}", ["a": "b"]),
        ("{\"k\":\"é\\/\"}", ["k": "é/"]),
    ] as [(String, [String: String])])
    func objectsOfStringsDecode(text: String, map: [String: String]) {
        #expect(StringMapJSON.decode(text) == map)
    }

    @Test(arguments: ["", "{", "[]", "{\"a\":1}", "{\"a\":null}", "null", "{}x"])
    func anythingElseIsNil(text: String) {
        #expect(StringMapJSON.decode(text) == nil)
    }

    @Test(arguments: [[:], ["a": "b"], ["z": "1", "a": "é/\"\\"]] as [[String: String]])
    func whatIsEncodedDecodesTheSame(map: [String: String]) {
        #expect(StringMapJSON.decode(StringMapJSON.encode(map)) == map)
    }
}
