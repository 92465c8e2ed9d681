import Crypto
import Foundation
import JOSE
import OIDC
import Synchronization
import Testing

/// The upstream ID token checks, each refusal with its exact reason, against a JWKS served by a
/// stand-in fetcher that counts its fetches.
@Suite struct UpstreamIDTokenTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let issuer = "https://upstream.example/"
    static let jwksURL = "https://upstream.example/.well-known/jwks.json"
    static let rsa = try! SigningKey.generate(.rs256)
    static let ec = try! SigningKey.generate(.es256)
    static let stranger = try! SigningKey.generate(.rs256)

    final class StandIn: UpstreamFetcher {
        let sets: Mutex<[[JWK]]>
        let fetches = Mutex(0)
        init(_ sets: [[JWK]]) { self.sets = Mutex(sets) }
        func get(_ url: String) throws(UpstreamError) -> UpstreamResponse {
            fetches.withLock { $0 += 1 }
            let keys = sets.withLock { sets in sets.count > 1 ? sets.removeFirst() : sets[0] }
            return UpstreamResponse(status: 200, body: (try? JWKSet(keys: keys).jsonBytes()) ?? [], maxAge: 600)
        }
        func postForm(_ url: String, fields: [(String, String)], basic: (user: String, password: String)?) throws(UpstreamError) -> UpstreamResponse {
            throw .unreachable("not in this test")
        }
    }

    static let keys = [JWK(publicKey: rsa.publicKey, kid: "r1"), JWK(publicKey: ec.publicKey, kid: "e1")]

    static func claims(_ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "aud": .string("gatehouse"), "sub": .string("u-42"), "nonce": .string("n-123"),
            "iat": .integer(Int64(now.timeIntervalSince1970) - 5), "exp": .integer(Int64(now.timeIntervalSince1970) + 300),
            "email": .string("ada@example.com"), "email_verified": .bool(true),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    static func expectation(nonce: String = "n-123") -> UpstreamIDTokenVerifier.Expectation {
        .init(issuer: issuer, jwksURL: jwksURL, audiences: ["gatehouse"], nonce: nonce)
    }

    /// A token with a hand-made header and signature, for what our signer refuses to make.
    static func crafted(header: [String: JSONValue], claims: [String: JSONValue], sign: ([UInt8]) -> [UInt8]) throws -> String {
        let input = Base64URL.encode(try JSONValue.object(header).jsonBytes()) + "." + Base64URL.encode(try JSONValue.object(claims).jsonBytes())
        return input + "." + Base64URL.encode(sign(Array(input.utf8)))
    }

    func verify(_ token: String, fetcher: StandIn = StandIn([keys]), nonce: String = "n-123") throws(UpstreamError) -> [String: JSONValue] {
        try UpstreamIDTokenVerifier(keys: UpstreamKeyCache(fetcher: fetcher)).verify(token, expecting: Self.expectation(nonce: nonce), now: Self.now)
    }

    @Test func aGoodTokenOfEitherAlgorithmIsAccepted() throws {
        for (key, kid) in [(Self.rsa, "r1"), (Self.ec, "e1")] {
            let token = try JWS.sign(claims: Self.claims(), key: key, kid: kid)
            #expect(try verify(token)["sub"] == .string("u-42"))
        }
    }

    @Test(arguments: [
        ("wrong audience", ["aud": .string("someone-else")], "invalid upstream ID token: aud someone-else is not ours"),
        ("wrong issuer", ["iss": .string("https://evil.example/")], "invalid upstream ID token: iss https://evil.example/ is not https://upstream.example/"),
        ("expired", ["exp": .integer(1_800_000_000 - 61)], "invalid upstream ID token: expired"),
        ("issued in the future", ["iat": .integer(1_800_000_000 + 120)], "invalid upstream ID token: iat is in the future"),
        ("nonce missing", ["nonce": nil], "invalid upstream ID token: nonce missing"),
        ("nonce mismatch", ["nonce": .string("other")], "invalid upstream ID token: nonce mismatch"),
        ("no sub", ["sub": nil], "invalid upstream ID token: sub missing"),
    ] as [(String, [String: JSONValue?], String)])
    func aRefusedClaim(label: String, changes: [String: JSONValue?], message: String) throws {
        let token = try JWS.sign(claims: Self.claims(changes), key: Self.rsa, kid: "r1")
        #expect(throws: UpstreamError.self) { try verify(token) }
        do { _ = try verify(token) } catch { #expect(error.description == message, "\(label)") }
    }

    @Test func expiryAllowsTheLeewayOnly() throws {
        let token = try JWS.sign(claims: Self.claims(["exp": .integer(1_800_000_000 - 30)]), key: Self.rsa, kid: "r1")
        #expect(try verify(token)["sub"] == .string("u-42"))
    }

    @Test func aBadSignature() throws {
        let token = try JWS.sign(claims: Self.claims(), key: Self.stranger, kid: "r1")
        #expect(throws: UpstreamError.invalidIDToken("bad signature")) { try verify(token) }
    }

    @Test func algNoneIsRefused() throws {
        let token = try Self.crafted(header: ["alg": .string("none"), "kid": .string("r1")], claims: Self.claims()) { _ in [0] }
        #expect(throws: UpstreamError.invalidIDToken("alg none is not allowed (RS256 or ES256 only)")) { try verify(token) }
    }

    @Test func hs256WithThePublicKeyAsSecretIsRefused() throws {
        let secret = Array(try JWKSet(keys: [JWK(publicKey: Self.rsa.publicKey, kid: "r1")]).jsonBytes())
        let token = try Self.crafted(header: ["alg": .string("HS256"), "kid": .string("r1")], claims: Self.claims()) {
            HMAC.sha256(key: secret, data: $0)
        }
        #expect(throws: UpstreamError.invalidIDToken("alg HS256 is not allowed (RS256 or ES256 only)")) { try verify(token) }
    }

    @Test func anRS256HeaderOnAnECKeyIsRefused() throws {
        let token = try Self.crafted(header: ["alg": .string("RS256"), "kid": .string("e1")], claims: Self.claims()) { (try? Self.ec.sign($0)) ?? [] }
        #expect(throws: UpstreamError.invalidIDToken("alg does not match the key")) { try verify(token) }
    }

    @Test func anUnknownKidRefetchesOnceThenFails() throws {
        let fetcher = StandIn([Self.keys])
        let cache = UpstreamKeyCache(fetcher: fetcher)
        let verifier = UpstreamIDTokenVerifier(keys: cache)
        let good = try JWS.sign(claims: Self.claims(), key: Self.rsa, kid: "r1")
        _ = try verifier.verify(good, expecting: Self.expectation(), now: Self.now)
        _ = try verifier.verify(good, expecting: Self.expectation(), now: Self.now.addingTimeInterval(1))
        #expect(fetcher.fetches.withLock { $0 } == 1, "cached, never fetched per request")
        let unknown = try JWS.sign(claims: Self.claims(), key: Self.stranger, kid: "rotated")
        let later = Self.now.addingTimeInterval(40)
        #expect(throws: UpstreamError.invalidIDToken("unknown kid")) { try verifier.verify(unknown, expecting: Self.expectation(), now: later) }
        #expect(fetcher.fetches.withLock { $0 } == 2, "one refetch for the unknown kid")
        // Made-up kids in a burst do not make it fetch again.
        #expect(throws: UpstreamError.invalidIDToken("unknown kid")) { try verifier.verify(unknown, expecting: Self.expectation(), now: later.addingTimeInterval(1)) }
        #expect(fetcher.fetches.withLock { $0 } == 2)
    }

    @Test func aRotationUpstreamIsPickedUpByTheRefetch() throws {
        let rotated = [JWK(publicKey: Self.stranger.publicKey, kid: "r2")]
        let fetcher = StandIn([Self.keys, rotated])
        let verifier = UpstreamIDTokenVerifier(keys: UpstreamKeyCache(fetcher: fetcher))
        _ = try verifier.verify(try JWS.sign(claims: Self.claims(), key: Self.rsa, kid: "r1"), expecting: Self.expectation(), now: Self.now)
        let next = try JWS.sign(claims: Self.claims(), key: Self.stranger, kid: "r2")
        #expect(try verifier.verify(next, expecting: Self.expectation(), now: Self.now.addingTimeInterval(31))["sub"] == .string("u-42"))
    }

    @Test(arguments: [
        ("http://upstream.example/jwks", "upstream unreachable: JWKS URL http://upstream.example/jwks: plain http is allowed only for loopback hosts (127.0.0.1, [::1], localhost)"),
    ])
    func aJWKSOverPlainHTTPIsNeverFetched(url: String, message: String) throws {
        let fetcher = StandIn([Self.keys])
        let verifier = UpstreamIDTokenVerifier(keys: UpstreamKeyCache(fetcher: fetcher))
        let token = try JWS.sign(claims: Self.claims(), key: Self.rsa, kid: "r1")
        do {
            _ = try verifier.verify(token, expecting: .init(issuer: Self.issuer, jwksURL: url, audiences: ["gatehouse"], nonce: "n-123"), now: Self.now)
            Issue.record("accepted")
        } catch {
            #expect(error.description == message)
        }
        #expect(fetcher.fetches.withLock { $0 } == 0)
    }
}
