import Crypto
import JOSE
import Testing

@Suite("JWS sign and verify")
struct JWSTests {
    let fixture = Fixture.shared

    @Test("RS256 round trip", arguments: [2048, 3072])
    func rs256(bits: Int) throws {
        let key = try SigningKey.generate(.rs256, rsaBits: bits)
        let claims: [String: JSONValue] = ["iss": .string("https://id.example/"), "exp": .integer(1_700_000_000)]
        let token = try JWS.sign(claims: claims, key: key, kid: "k")
        let verified = try JWS.verify(token) { $0 == "k" ? (key.publicKey, .rs256) : nil }
        #expect(try verified.claims() == claims)
        #expect(verified.header["alg"] == .string("RS256"))
        #expect(verified.header["typ"] == .string("JWT"))
        #expect(verified.kid == "k")
        // Canonical JSON: sorted keys, integers stay integers, slashes unescaped.
        #expect(String(decoding: verified.payload, as: UTF8.self)
            == #"{"exp":1700000000,"iss":"https://id.example/"}"#)
    }

    @Test("ES256 round trip with extra header members and no typ")
    func es256() throws {
        let token = try JWS.sign(header: ["cty": .string("x"), "alg": .string("none")],
                                 payload: Array("raw".utf8), key: fixture.ec, kid: "ec1", typ: nil)
        let verified = try JWS.verify(token, keys: fixture.lookup)
        #expect(verified.payload == Array("raw".utf8))
        #expect(verified.algorithm == .es256)
        #expect(verified.header == ["alg": .string("ES256"), "kid": .string("ec1"), "cty": .string("x")])
        #expect(throws: JWSError.invalidPayload) { try verified.claims() }
        let signature = try Base64URL.decode(token.split(separator: ".")[2])
        #expect(signature.count == 64)
    }

    @Test("claims with repeated names are refused; same names in different objects are fine")
    func duplicateClaims() throws {
        let duplicate = try JWS.sign(payload: Array(#"{"sub":"alice","sub":"admin"}"#.utf8), key: fixture.rsa, kid: "rsa1")
        #expect(throws: JWSError.invalidPayload) { try JWS.verify(duplicate, keys: fixture.lookup).claims() }
        let nested = #"{"a":{"a":1,"s":"x\"a\":"},"b":[{"a":1},{"a":2}],"c":"{\"a\""}"#
        let token = try JWS.sign(payload: Array(nested.utf8), key: fixture.rsa, kid: "rsa1")
        #expect(try JWS.verify(token, keys: fixture.lookup).claims().count == 3)
    }

    @Test("payload that is JSON but not an object is not a claim set")
    func nonObjectPayload() throws {
        let token = try JWS.sign(payload: Array("[1,2]".utf8), key: fixture.rsa, kid: "rsa1")
        let verified = try JWS.verify(token, keys: fixture.lookup)
        #expect(throws: JWSError.invalidPayload) { try verified.claims() }
    }

    /// One hostile token and the error it must produce.
    struct Rejection: Sendable, CustomTestStringConvertible {
        let name: String
        let expected: JWSError
        let make: @Sendable (Fixture) throws -> String
        var testDescription: String { name }
    }

    static func valid(_ fixture: Fixture) throws -> String {
        try JWS.sign(claims: ["sub": .string("alice")], key: fixture.rsa, kid: "rsa1")
    }

    static func validEC(_ fixture: Fixture) throws -> String {
        try JWS.sign(claims: ["sub": .string("alice")], key: fixture.ec, kid: "ec1")
    }

    static func replacingSegment(_ token: String, _ index: Int, with value: String) -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[index] = value
        return parts.joined(separator: ".")
    }

    static let rejections: [Rejection] = [
        Rejection(name: "alg none with empty signature", expected: .malformed) { _ in
            Base64URL.encode(Array(#"{"alg":"none","kid":"rsa1"}"#.utf8)) + "." + Base64URL.encode(Array("{}".utf8)) + "."
        },
        Rejection(name: "alg none with a signature", expected: .unsupportedAlgorithm("none")) { _ in
            craft(header: #"{"alg":"none","kid":"rsa1"}"#) { _ in [1] }
        },
        Rejection(name: "HS256 keyed with our RSA public key PEM", expected: .unsupportedAlgorithm("HS256")) { f in
            let pem = Array(try f.rsa.publicKey.spkiPEM().utf8)
            return craft(header: #"{"alg":"HS256","kid":"rsa1"}"#) { HMAC.sha256(key: pem, data: Array($0.utf8)) }
        },
        Rejection(name: "HS256 keyed with our RSA public key SPKI DER", expected: .unsupportedAlgorithm("HS256")) { f in
            let der = try f.rsa.publicKey.spkiDER()
            return craft(header: #"{"alg":"HS256","kid":"rsa1"}"#) { HMAC.sha256(key: der, data: Array($0.utf8)) }
        },
        Rejection(name: "unknown algorithm RS512", expected: .unsupportedAlgorithm("RS512")) { f in
            try craft(header: #"{"alg":"RS512","kid":"rsa1"}"#) { try f.rsa.sign(Array($0.utf8)) }
        },
        Rejection(name: "ES256 header for an RSA kid", expected: .algorithmMismatch) { f in
            try craft(header: #"{"alg":"ES256","kid":"rsa1"}"#) { try f.ec.sign(Array($0.utf8)) }
        },
        Rejection(name: "RS256 header for an EC kid", expected: .algorithmMismatch) { f in
            try craft(header: #"{"alg":"RS256","kid":"ec1"}"#) { try f.rsa.sign(Array($0.utf8)) }
        },
        Rejection(name: "unknown kid", expected: .unknownKey) { f in
            try craft(header: #"{"alg":"RS256","kid":"nope"}"#) { try f.rsa.sign(Array($0.utf8)) }
        },
        Rejection(name: "missing kid", expected: .invalidHeader) { f in
            try craft(header: #"{"alg":"RS256"}"#) { try f.rsa.sign(Array($0.utf8)) }
        },
        Rejection(name: "missing alg", expected: .invalidHeader) { f in
            try craft(header: #"{"kid":"rsa1"}"#) { try f.rsa.sign(Array($0.utf8)) }
        },
        Rejection(name: "non-string alg", expected: .invalidHeader) { f in
            try craft(header: #"{"alg":["RS256"],"kid":"rsa1"}"#) { try f.rsa.sign(Array($0.utf8)) }
        },
        Rejection(name: "crit present", expected: .criticalHeader) { f in
            try craft(header: #"{"alg":"RS256","kid":"rsa1","crit":["exp"],"exp":1}"#) { try f.rsa.sign(Array($0.utf8)) }
        },
        Rejection(name: "duplicate alg in header", expected: .invalidHeader) { f in
            try craft(header: #"{"alg":"RS256","kid":"rsa1","alg":"none"}"#) { try f.rsa.sign(Array($0.utf8)) }
        },
        Rejection(name: "duplicate alg spelled with an escape", expected: .invalidHeader) { f in
            try craft(header: #"{"alg":"RS256","kid":"rsa1","\u0061lg":"none"}"#) { try f.rsa.sign(Array($0.utf8)) }
        },
        Rejection(name: "header is not JSON", expected: .invalidHeader) { f in
            try craft(header: #"alg=RS256"#) { try f.rsa.sign(Array($0.utf8)) }
        },
        Rejection(name: "header is a JSON array", expected: .invalidHeader) { f in
            try craft(header: #"["RS256","rsa1"]"#) { try f.rsa.sign(Array($0.utf8)) }
        },
        Rejection(name: "two segments", expected: .malformed) { f in
            try valid(f).split(separator: ".").prefix(2).joined(separator: ".")
        },
        Rejection(name: "four segments", expected: .malformed) { f in try valid(f) + ".AAAA" },
        Rejection(name: "trailing dot", expected: .malformed) { f in try valid(f) + "." },
        Rejection(name: "empty payload segment", expected: .malformed) { f in replacingSegment(try valid(f), 1, with: "") },
        Rejection(name: "padded signature", expected: .malformed) { f in try valid(f) + "==" },
        Rejection(name: "padded header", expected: .malformed) { f in
            let token = try valid(f)
            let header = String(token.split(separator: ".")[0])
            return replacingSegment(token, 0, with: header + String(repeating: "=", count: (4 - header.count % 4) % 4 + 4))
        },
        Rejection(name: "trailing newline", expected: .malformed) { f in try valid(f) + "\n" },
        Rejection(name: "leading space", expected: .malformed) { f in try " " + valid(f) },
        Rejection(name: "standard base64 alphabet in signature", expected: .malformed) { f in
            let token = try valid(f)
            return replacingSegment(token, 2, with: String(token.split(separator: ".")[2]).replacingOccurrences("-", "+") + "+")
        },
        Rejection(name: "empty string", expected: .malformed) { _ in "" },
        Rejection(name: "tampered payload", expected: .badSignature) { f in
            replacingSegment(try valid(f), 1, with: Base64URL.encode(Array(#"{"sub":"mallory"}"#.utf8)))
        },
        Rejection(name: "tampered RS256 signature", expected: .badSignature) { f in
            let token = try valid(f)
            var signature = try Base64URL.decode(token.split(separator: ".")[2])
            signature[0] ^= 0x80
            return replacingSegment(token, 2, with: Base64URL.encode(signature))
        },
        Rejection(name: "truncated RS256 signature", expected: .badSignature) { f in
            let token = try valid(f)
            let signature = try Base64URL.decode(token.split(separator: ".")[2])
            return replacingSegment(token, 2, with: Base64URL.encode(signature.dropLast()))
        },
        Rejection(name: "DER-encoded ES256 signature", expected: .badSignature) { f in
            let token = try validEC(f)
            let raw = try Base64URL.decode(token.split(separator: ".")[2])
            return replacingSegment(token, 2, with: Base64URL.encode(derFromRaw(raw)))
        },
        Rejection(name: "ES256 signature from another key", expected: .badSignature) { _ in
            let other = try SigningKey.generate(.es256)
            return try JWS.sign(claims: [:], key: other, kid: "ec1")
        },
    ]

    @Test("rejects hostile tokens", arguments: rejections)
    func rejects(_ rejection: Rejection) throws {
        let token = try rejection.make(fixture)
        #expect(throws: rejection.expected) { try JWS.verify(token, keys: fixture.lookup) }
    }

    @Test("the unmodified fixtures verify (controls for the rejection table)")
    func controls() throws {
        #expect(try JWS.verify(Self.valid(fixture), keys: fixture.lookup).kid == "rsa1")
        #expect(try JWS.verify(Self.validEC(fixture), keys: fixture.lookup).kid == "ec1")
    }
}

private extension String {
    func replacingOccurrences(_ target: Character, _ replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
