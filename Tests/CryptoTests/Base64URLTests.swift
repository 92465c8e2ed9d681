import Crypto
import Testing

@Suite("Base64URL")
struct Base64URLTests {
    @Test("round-trips every length up to 64")
    func roundTrip() throws {
        for length in 0...64 {
            let bytes = Random.bytes(length)
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("="))
            #expect(try Base64URL.decode(text) == bytes)
        }
    }

    @Test("decodes a token's substring, and every byte value")
    func substringsAndEveryByte() throws {
        let bytes = (0...255).map(UInt8.init)
        let token = "at_" + Base64URL.encode(bytes)
        #expect(try Base64URL.decode(token.dropFirst(3)) == bytes)
        // 255 bytes are the first 340 characters: a slice that ends inside the string.
        #expect(try Base64URL.decode(token.dropFirst(3).dropLast(2)) == Array(bytes.prefix(255)))
    }

    @Test("RFC 4648 vectors in the URL alphabet")
    func vectors() throws {
        let cases: [(String, String)] = [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"),
                                          ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")]
        for (plain, encoded) in cases {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(try Base64URL.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(try Base64URL.decode("-_8") == [0xfb, 0xff])
    }

    static let rejections: [(String, Base64URL.DecodingError)] = [
        ("Zg==", .invalidCharacter(offset: 2)),      // padding
        ("Zm8=", .invalidCharacter(offset: 3)),      // padding
        ("Zm9v Yg", .invalidCharacter(offset: 4)),   // inner space
        ("Zm9v\n", .invalidCharacter(offset: 4)),    // trailing newline
        (" Zm9v", .invalidCharacter(offset: 0)),     // leading space
        ("Zm9v\tYg", .invalidCharacter(offset: 4)),  // tab
        ("+/8", .invalidCharacter(offset: 0)),       // standard alphabet
        ("-/8", .invalidCharacter(offset: 1)),       // standard alphabet
        ("Zm.v", .invalidCharacter(offset: 2)),      // non-alphabet ASCII
        ("Zm9vé", .invalidCharacter(offset: 4)),     // non-ASCII
        ("Z", .invalidLength),                       // 4k+1
        ("Zm9vY", .invalidLength),                   // 4k+1
        ("Zm9v=", .invalidCharacter(offset: 4)),     // a bad character before a bad length
        ("Zm=vY", .invalidCharacter(offset: 2)),     // the first bad character, in a whole group
        ("Zh", .nonZeroTrailingBits),                // "f" is Zg
        ("Zm9", .nonZeroTrailingBits),               // "fo" is Zm8
        ("-_9", .nonZeroTrailingBits),               // [fb ff] is -_8
    ]

    @Test("rejects non-canonical input", arguments: rejections)
    func rejects(input: String, expected: Base64URL.DecodingError) {
        #expect(throws: expected) { try Base64URL.decode(input) }
    }
}
