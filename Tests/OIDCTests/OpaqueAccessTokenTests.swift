import Crypto
import Foundation
import JOSE
import Model
import Testing
import TestSupport
@testable import OIDC

@Suite("Opaque access tokens")
struct OpaqueAccessTokenTests {
    static let payload = OpaqueAccessTokenPayload(grantID: "g-123", userID: "auth0|alice", clientID: "native-app",
                                                  scope: "openid profile email offline_access", issuedAt: 1_800_000_000,
                                                  expiresAt: 1_800_086_400)

    @Test func sealsAndOpens() throws {
        let token = try TestSigner.opaque.seal(Self.payload)
        #expect(token.hasPrefix("at_"))
        #expect(try TestSigner.opaque.open(token) == Self.payload)
    }

    /// Nothing of the payload shows, and two tokens for the same grant share no bytes but the header.
    @Test func revealsNothing() throws {
        let first = try TestSigner.opaque.seal(Self.payload)
        let second = try TestSigner.opaque.seal(Self.payload)
        #expect(first != second)
        let bytes = try Base64URL.decode(first.dropFirst(3))
        for secret in ["g-123", "auth0|alice", "native-app", "openid"] {
            #expect(Data(bytes).range(of: Data(secret.utf8)) == nil, "\(secret) in the clear")
            #expect(!first.contains(Base64URL.encode(Array(secret.utf8)).dropLast()), "\(secret) in base64url")
        }
        // version, key id, then a 16-byte random salt and a 12-byte random nonce.
        let other = try Base64URL.decode(second.dropFirst(3))
        #expect(bytes.prefix(5) == other.prefix(5))
        #expect(bytes[5..<33] != other[5..<33])
    }

    /// Every string survives exactly, empty and multi-byte ones included.
    @Test(arguments: [("", "", "", ""), ("g", "ü|ß", "c", "openid"), (String(repeating: "x", count: 300), "u", "c", "a b c")])
    func roundTripsAnyStrings(_ values: (String, String, String, String)) throws {
        let payload = OpaqueAccessTokenPayload(grantID: values.0, userID: values.1, clientID: values.2, scope: values.3,
                                               issuedAt: -1, expiresAt: Int64.max)
        #expect(try TestSigner.opaque.open(TestSigner.opaque.seal(payload)) == payload)
    }

    /// A key ring: the first key seals, the others still open their tokens (a key change).
    @Test func aPreviousKeyStillOpens() throws {
        let previous = OpaqueAccessTokens(key: Array(repeating: 7, count: 32))
        let token = try previous.seal(Self.payload)
        let ring = OpaqueAccessTokens(keys: [Array(repeating: 0x42, count: 32), Array(repeating: 7, count: 32)])
        #expect(try ring.open(token) == Self.payload)
        #expect(try TestSigner.opaque.open(ring.seal(Self.payload)) == Self.payload)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let change: @Sendable (String) throws -> String
        let error: OpaqueAccessTokenError
        var testDescription: String { name }
    }

    /// Rewrites the decoded bytes of `token`.
    static func edit(_ token: String, _ change: (inout [UInt8]) -> Void) throws -> String {
        var bytes = try Base64URL.decode(token.dropFirst(3))
        change(&bytes)
        return "at_" + Base64URL.encode(bytes)
    }

    static let refusals: [Refusal] = [
        .init(name: "ciphertext byte flipped", change: { try edit($0) { $0[40] ^= 1 } }, error: .tampered),
        .init(name: "tag byte flipped", change: { try edit($0) { $0[$0.count - 1] ^= 0x80 } }, error: .tampered),
        .init(name: "salt byte flipped", change: { try edit($0) { $0[6] ^= 1 } }, error: .tampered),
        .init(name: "nonce byte flipped", change: { try edit($0) { $0[25] ^= 1 } }, error: .tampered),
        .init(name: "one byte cut off", change: { try edit($0) { $0.removeLast() } }, error: .tampered),
        .init(name: "cut to the header", change: { try edit($0) { $0.removeLast($0.count - 49) } }, error: .tampered),
        .init(name: "cut below header, nonce and tag", change: { try edit($0) { $0.removeLast($0.count - 48) } }, error: .malformed),
        .init(name: "cut to a length base64url never has", change: { token in
            let body = token.dropFirst(3)
            return "at_" + body.prefix(body.count / 4 * 4 - 3) }, error: .malformed),
        .init(name: "prefix only", change: { _ in "at_" }, error: .malformed),
        .init(name: "not base64url", change: { $0 + "+" }, error: .malformed),
        .init(name: "oversized", change: { $0 + String(repeating: "A", count: 4_096) }, error: .malformed),
        .init(name: "version 2", change: { try edit($0) { $0[0] = 2 } }, error: .unknownVersion(2)),
        .init(name: "version 0", change: { try edit($0) { $0[0] = 0 } }, error: .unknownVersion(0)),
        .init(name: "another key id", change: { try edit($0) { $0[1] ^= 1 } }, error: .unknownKey),
        .init(name: "sealed under another key", change: { _ in
            try OpaqueAccessTokens(key: Array(repeating: 1, count: 32)).seal(OpaqueAccessTokenTests.payload) }, error: .unknownKey),
    ]

    @Test(arguments: refusals)
    func refuses(_ row: Refusal) throws {
        let token = try row.change(try TestSigner.opaque.seal(Self.payload))
        #expect(throws: row.error) { try TestSigner.opaque.open(token) }
    }

    /// The minter: no audience (or the userinfo URL) → opaque; an API audience → an RFC 9068 JWT.
    @Test func theMinterMakesUserinfoOnlyTokensOpaque() throws {
        let harness = LifecycleHarness()
        for audience in [nil, Fixture.issuer + "userinfo"] {
            let (grant, token) = try harness.userToken(audience: audience)
            let payload = try TestSigner.opaque.open(token)
            #expect(payload == OpaqueAccessTokenPayload(grantID: grant.grantID, userID: Fixture.alice.userID, clientID: Fixture.native.clientID,
                                                        scope: "openid profile offline_access", issuedAt: 1_800_000_000,
                                                        expiresAt: 1_800_000_000 + 86_400))
        }
        let (_, jwt) = try harness.userToken(audience: LifecycleHarness.apiIdentifier)
        #expect(try verify(jwt).header["typ"] == .string("at+jwt"))
    }

    /// Counts what it signs, by JWS `typ`.
    final class CountingSigner: TokenSigner, @unchecked Sendable {
        private let lock = NSLock()
        private var signed: [String] = []
        var types: [String] { lock.withLock { signed } }
        func sign(claims: [String: JSONValue], algorithm: SigningKey.Algorithm, typ: String) throws -> String {
            lock.withLock { signed.append(typ) }
            return try TestSigner().sign(claims: claims, algorithm: algorithm, typ: typ)
        }
    }

    /// The point of the change: a response without an audience costs one signature, the ID token's.
    @Test(arguments: [(nil, ["JWT"]), (Fixture.issuer + "userinfo", ["JWT"]), ("https://api.example.com", ["at+jwt", "JWT"])])
    func aUserinfoOnlyResponseSignsOnce(_ audience: String?, _ expected: [String]) throws {
        let signer = CountingSigner()
        let minter = TokenMinter(issuer: Fixture.issuer, signer: signer, opaqueTokens: TestSigner.opaque, clock: FixedClock(Fixture.epoch))
        let grant = Grant(grantID: "g", clientID: "native-app", userID: "user-alice", sessionID: nil, scope: "openid",
                          audience: audience, authTime: nil, createdAt: Fixture.epoch)
        let issuance = TokenIssuance(client: Fixture.native, user: Fixture.alice, grant: grant, scopes: ["openid", "offline_access"],
                                     audience: audience, nonce: nil, authTime: nil, sessionID: nil, refreshToken: "r")
        let response = try minter.response(for: issuance)
        #expect(signer.types == expected)
        #expect(response.accessToken.hasPrefix("at_") == (expected.count == 1))
        #expect(response.tokenType == "Bearer" && response.expiresIn == Fixture.native.accessTokenLifetime)
    }

    /// /userinfo's validator: each refusal is `invalid_token` with one description, and expiry is checked.
    @Test func theValidatorRefusesWithInvalidToken() throws {
        let harness = LifecycleHarness()
        let (_, token) = try harness.userToken()
        func validate(_ bearer: String) throws(OAuthError) -> AccessTokenGrant {
            try AccessTokenValidator.validate(bearer: bearer, keys: TestSigner.keys, opaque: TestSigner.opaque, issuer: Fixture.issuer,
                                              grants: harness.grants, users: harness.users, clock: harness.clock)
        }
        #expect(try validate(token).user.userID == Fixture.alice.userID)
        var refused = try Self.refusals.map { ($0.name, try $0.change(token)) }
        harness.clock.advance(by: 86_400)
        refused.append(("expired", token))
        for (name, bearer) in refused {
            do {
                _ = try validate(bearer)
                Issue.record("\(name) accepted")
            } catch {
                #expect(error.code == .invalidToken && error.description == "the access token is invalid", "\(name)")
            }
        }
    }
}
