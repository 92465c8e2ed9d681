import Crypto
import Foundation
import JOSE
import Testing

/// Cross-checks against independent implementations: Python joserfc and the
/// openssl CLI. These are required (CI installs Tests/interop/requirements.txt).
@Suite("Interop")
struct InteropTests {
    /// Fails loudly, never skips, when joserfc is missing.
    func requireJoserfc() throws {
        let probe = try run(["python3", "-c", "import joserfc"])
        try #require(probe.status == 0, """
            Python package joserfc is missing: run `pip install -r Tests/interop/requirements.txt` \
            (or `pip install joserfc`). \(probe.stderr)
            """)
    }

    @Test("joserfc verifies our RS256 and ES256 tokens against our JWKS")
    func joserfcVerifiesOurs() throws {
        try requireJoserfc()
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = [("rsa-2048", try SigningKey.generate(.rs256)),
                    ("rsa-3072", try SigningKey.generate(.rs256, rsaBits: 3072)),
                    ("ec", try SigningKey.generate(.es256))]
        let jwks = JWKSet(keys: keys.map { JWK(publicKey: $0.1.publicKey, kid: $0.0) })
        try Data(try jwks.jsonBytes()).write(to: directory.appendingPathComponent("jwks.json"))
        var cases: [[String: String]] = []
        for (kid, key) in keys {
            for index in 0..<(key.algorithm == .es256 ? 20 : 3) {
                let claims: [String: JSONValue] = ["iss": .string("https://gatehouse.example/"),
                                                   "sub": .string("user \(index)"), "n": .integer(Int64(index))]
                let token = try JWS.sign(claims: claims, key: key, kid: kid)
                let payload = String(decoding: try Base64URL.decode(token.split(separator: ".")[1]), as: UTF8.self)
                cases.append(["token": token, "alg": key.algorithm.rawValue, "payload": payload])
            }
        }
        try JSONSerialization.data(withJSONObject: cases).write(to: directory.appendingPathComponent("tokens.json"))
        let result = try run(["python3", interopScript("jose_verify.py"),
                              directory.appendingPathComponent("jwks.json").path,
                              directory.appendingPathComponent("tokens.json").path])
        #expect(result.status == 0, "joserfc refused our tokens: \(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains(#""verified": \#(cases.count)"#))
    }

    @Test("we verify tokens and import JWKs made by joserfc")
    func weVerifyJoserfc() throws {
        try requireJoserfc()
        let result = try run(["python3", interopScript("jose_sign.py")])
        try #require(result.status == 0, "jose_sign.py failed: \(result.stderr)")
        struct Output: Decodable {
            struct Token: Decodable { let kid: String; let alg: String; let token: String; let payload: String }
            let jwks: JWKSet
            let tokens: [Token]
        }
        let output = try JSONDecoder().decode(Output.self, from: Data(result.stdout.utf8))
        var keys: [String: (PublicKey, JWS.Algorithm)] = [:]
        for jwk in output.jwks.keys {
            let key = try jwk.publicKey()
            keys[try #require(jwk.kid)] = (key, key.algorithm)
        }
        #expect(keys["py-rsa-3072"]?.0.rsaBits == 3072)
        #expect(output.tokens.count == 12)
        for token in output.tokens {
            let verified = try JWS.verify(token.token) { keys[$0] }
            #expect(verified.payload == Array(token.payload.utf8))
            #expect(verified.algorithm.rawValue == token.alg)
            #expect(try verified.claims()["iss"] == .string("https://py.example/"))
        }
    }

    @Test("openssl dgst verifies our RS256 and ES256 signatures over the signing input")
    func opensslVerifiesOurs() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for key in [try SigningKey.generate(.rs256), try SigningKey.generate(.es256)] {
            let token = try JWS.sign(claims: ["sub": .string("alice")], key: key, kid: "k")
            let parts = token.split(separator: ".")
            let input = Array("\(parts[0]).\(parts[1])".utf8)
            var signature = try Base64URL.decode(parts[2])
            // openssl expects DER for ECDSA; JOSE carries raw r||s.
            if key.algorithm == .es256 { signature = derFromRaw(signature) }
            try Data(input).write(to: directory.appendingPathComponent("input.bin"))
            try Data(signature).write(to: directory.appendingPathComponent("sig.bin"))
            try Data(try key.publicKey.spkiPEM().utf8).write(to: directory.appendingPathComponent("pub.pem"))
            let result = try run(["openssl", "dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig.bin",
                                  "input.bin"], in: directory)
            #expect(result.status == 0, "\(key.algorithm): \(result.stdout) \(result.stderr)")
            #expect(result.stdout.contains("Verified OK"))
        }
    }
}
