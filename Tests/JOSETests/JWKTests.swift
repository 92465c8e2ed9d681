import Crypto
import Foundation
import JOSE
import Testing

@Suite("JWK and JWKS")
struct JWKTests {
    let fixture = Fixture.shared

    @Test("public keys round-trip through JWK JSON")
    func roundTrip() throws {
        for (key, kid) in [(fixture.rsa, "rsa1"), (fixture.ec, "ec1")] {
            let jwk = JWK(publicKey: key.publicKey, kid: kid)
            #expect(jwk.use == "sig")
            #expect(jwk.alg == key.algorithm.rawValue)
            let decoded = try JSONDecoder().decode(JWK.self, from: JSONEncoder().encode(jwk))
            #expect(try decoded.publicKey().components == key.publicKey.components)
            #expect(try decoded.thumbprint() == JWK.thumbprint(of: key.publicKey))
        }
    }

    @Test("JWKS rendering is stable: sorted keys, no escaped slashes")
    func stableJWKS() throws {
        let set = JWKSet(keys: [JWK(kty: "EC", use: "sig", alg: "ES256", kid: "a/b", crv: "P-256",
                                    x: fixture.ec.publicKey.x.map(Base64URL.encode),
                                    y: fixture.ec.publicKey.y.map(Base64URL.encode))])
        let json = try set.jsonString()
        #expect(json.hasPrefix(#"{"keys":[{"alg":"ES256","crv":"P-256","kid":"a/b","kty":"EC","use":"sig","x":""#))
        #expect(try set.jsonString() == json)
        let parsed = try JWKSet(json: Array(json.utf8))
        #expect(parsed == set)
        #expect(parsed.key(kid: "a/b") != nil)
    }

    static func rsaMembers(_ fixture: Fixture) -> [String: String] {
        ["kty": "RSA", "n": Base64URL.encode(fixture.rsa.publicKey.n!), "e": "AQAB"]
    }

    static func ecMembers(_ fixture: Fixture) -> [String: String] {
        ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(fixture.ec.publicKey.x!),
         "y": Base64URL.encode(fixture.ec.publicKey.y!)]
    }

    struct BadJWK: Sendable, CustomTestStringConvertible {
        let name: String
        let expected: JWKError
        let members: @Sendable (Fixture) -> [String: String]
        var testDescription: String { name }
    }

    static let rejections: [BadJWK] = [
        BadJWK(name: "RSA with d", expected: .containsPrivateKey) { rsaMembers($0).merging(["d": "AQAB"]) { $1 } },
        BadJWK(name: "RSA with p", expected: .containsPrivateKey) { rsaMembers($0).merging(["p": "AQAB"]) { $1 } },
        BadJWK(name: "RSA with q", expected: .containsPrivateKey) { rsaMembers($0).merging(["q": "AQAB"]) { $1 } },
        BadJWK(name: "RSA with dp", expected: .containsPrivateKey) { rsaMembers($0).merging(["dp": "AQAB"]) { $1 } },
        BadJWK(name: "RSA with dq", expected: .containsPrivateKey) { rsaMembers($0).merging(["dq": "AQAB"]) { $1 } },
        BadJWK(name: "RSA with qi", expected: .containsPrivateKey) { rsaMembers($0).merging(["qi": "AQAB"]) { $1 } },
        BadJWK(name: "EC with d", expected: .containsPrivateKey) { ecMembers($0).merging(["d": "AQAB"]) { $1 } },
        BadJWK(name: "oct key with secret k", expected: .containsPrivateKey) { _ in ["kty": "oct", "k": "AAAA"] },
        BadJWK(name: "oct key", expected: .unsupportedKeyType("oct")) { _ in ["kty": "oct"] },
        BadJWK(name: "OKP key", expected: .unsupportedKeyType("OKP")) { _ in ["kty": "OKP", "crv": "Ed25519", "x": "AAAA"] },
        BadJWK(name: "P-384 curve", expected: .unsupportedCurve("P-384")) { ecMembers($0).merging(["crv": "P-384"]) { $1 } },
        BadJWK(name: "short x", expected: .invalidMember("x")) { ecMembers($0).merging(["x": "AAAA"]) { $1 } },
        BadJWK(name: "33-byte y", expected: .invalidMember("y")) { f in
            ecMembers(f).merging(["y": Base64URL.encode([0] + f.ec.publicKey.y!)]) { $1 }
        },
        BadJWK(name: "n with leading zero", expected: .invalidMember("n")) { f in
            rsaMembers(f).merging(["n": Base64URL.encode([0] + f.rsa.publicKey.n!)]) { $1 }
        },
        BadJWK(name: "padded n", expected: .invalidMember("n")) { f in rsaMembers(f).merging(["n": rsaMembers(f)["n"]! + "="]) { $1 } },
        BadJWK(name: "missing e", expected: .invalidMember("e")) { f in rsaMembers(f).filter { $0.key != "e" } },
        BadJWK(name: "RSA with alg ES256", expected: .algorithmMismatch) { rsaMembers($0).merging(["alg": "ES256"]) { $1 } },
        BadJWK(name: "EC with alg HS256", expected: .algorithmMismatch) { ecMembers($0).merging(["alg": "HS256"]) { $1 } },
        BadJWK(name: "use enc", expected: .invalidUse) { rsaMembers($0).merging(["use": "enc"]) { $1 } },
        BadJWK(name: "point not on curve", expected: .invalidKey) { f in
            var y = f.ec.publicKey.y!
            y[31] ^= 1
            return ecMembers(f).merging(["y": Base64URL.encode(y)]) { $1 }
        },
        BadJWK(name: "1024-bit RSA", expected: .invalidKey) { _ in
            ["kty": "RSA", "n": Base64URL.encode([0xc1] + [UInt8](repeating: 0x35, count: 127)), "e": "AQAB"]
        },
    ]

    @Test("rejects unusable JWKs", arguments: rejections)
    func rejects(_ bad: BadJWK) throws {
        let data = try JSONSerialization.data(withJSONObject: bad.members(fixture))
        let jwk = try JSONDecoder().decode(JWK.self, from: data)
        #expect(throws: bad.expected) { try jwk.publicKey() }
    }

    @Test("private members are never re-encoded")
    func privateMembersDropped() throws {
        let data = try JSONSerialization.data(withJSONObject: Self.rsaMembers(fixture).merging(["d": "AQAB"]) { $1 })
        let jwk = try JSONDecoder().decode(JWK.self, from: data)
        #expect(jwk.containsPrivateMembers)
        #expect(!String(decoding: try JSONEncoder().encode(jwk), as: UTF8.self).contains("\"d\""))
    }
}
