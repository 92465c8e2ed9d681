import Crypto
import Foundation
import JOSE
import Model
import Testing
import TestSupport
@testable import OIDC

func verify(_ token: String) throws -> (header: [String: JSONValue], claims: [String: JSONValue]) {
    let verified = try JWS.verify(token, keys: TestSigner.keys)
    return (verified.header, try verified.claims())
}

@Suite("Token minting")
struct TokenMintingTests {
    /// Auth0.swift's ID token rules (auth0-compat.md §4) and OIDC Core §2 (E01, E02).
    @Test func idTokenClaimsForAuth0Swift() throws {
        let harness = TokenHarness()
        let response = try harness.redeem(harness.nativeBody(harness.code()))
        let (header, claims) = try verify(try #require(response.idToken))
        #expect(header["alg"] == .string("RS256") && header["typ"] == .string("JWT") && header["kid"] == .string("RS256-kid"))
        #expect(claims["iss"] == .string("https://id.example.com/"))
        #expect(claims["sub"] == .string("user-alice"))
        #expect(claims["aud"] == .string("native-app"))
        #expect(claims["azp"] == .string("native-app"))
        let iat = try #require(claims["iat"]?.integerValue)
        #expect(iat == 1_800_000_000)
        #expect(claims["exp"]?.integerValue == iat + 36_000)
        #expect(claims["auth_time"]?.integerValue == 1_800_000_000)
        #expect(claims["nonce"] == .string("nonce-456"))
        #expect(claims["sid"] == .string("sid-1"))
        // profile and email scopes.
        #expect(claims["name"] == .string("Alice Liddell") && claims["given_name"] == .string("Alice"))
        #expect(claims["family_name"] == .string("Liddell") && claims["nickname"] == .string("al"))
        #expect(claims["picture"] == .string("https://img.example.com/a.png"))
        #expect(claims["updated_at"] == .string("2023-11-14T22:13:20.123Z"))
        #expect(claims["email"] == .string("alice@example.com") && claims["email_verified"] == .bool(true))
    }

    @Test func noNonceNoClaim() throws {
        let harness = TokenHarness()
        let response = try harness.redeem(harness.nativeBody(harness.code(scopes: ["openid"], nonce: nil)))
        let (_, claims) = try verify(try #require(response.idToken))
        #expect(claims["nonce"] == nil)
        #expect(claims["email"] == nil && claims["name"] == nil && claims["updated_at"] == nil)
        #expect(claims["sub"] == .string("user-alice"))
    }

    @Test func es256IDToken() throws {
        let harness = TokenHarness()
        let code = harness.code(client: Fixture.es256Web, challenge: nil)
        let response = try harness.redeem([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Fixture.webCallback)],
                                          authorization: harness.basic("es-app", Fixture.secret))
        let idToken = try #require(response.idToken)
        let (header, claims) = try verify(idToken)
        #expect(header["alg"] == .string("ES256"))
        #expect(claims["aud"] == .string("es-app"))
        // E03: raw 64-byte r||s signature.
        #expect(try Base64URL.decode(idToken.split(separator: ".")[2]).count == 64)
        // No audience: the access token is opaque, so the sign-in costs one signature.
        #expect(response.accessToken.hasPrefix("at_"))
        // An API's access token is signed with the API's algorithm (RS256 here), not the application's.
        let apiCode = harness.code(client: Fixture.es256Web, challenge: nil, audience: "https://api.example.com")
        let forAPI = try harness.redeem([("grant_type", "authorization_code"), ("code", apiCode), ("redirect_uri", Fixture.webCallback)],
                                        authorization: harness.basic("es-app", Fixture.secret))
        #expect(try verify(forAPI.accessToken).header["alg"] == .string("RS256"))
        #expect(try verify(try #require(forAPI.idToken)).header["alg"] == .string("ES256"))
    }

    /// RFC 9068 access token.
    @Test func accessTokenClaims() throws {
        let harness = TokenHarness()
        let response = try harness.redeem(harness.nativeBody(harness.code(audience: "https://api.example.com")))
        let (header, claims) = try verify(response.accessToken)
        #expect(header["typ"] == .string("at+jwt") && header["alg"] == .string("RS256"))
        #expect(claims["iss"] == .string(Fixture.issuer) && claims["sub"] == .string("user-alice"))
        #expect(claims["aud"] == .array([.string("https://api.example.com"), .string("https://id.example.com/userinfo")]))
        #expect(claims["client_id"] == .string("native-app") && claims["scope"] == .string("openid profile email"))
        #expect(claims["jti"]?.stringValue?.isEmpty == false)
        #expect(claims["exp"]?.integerValue == 1_800_000_000 + 86_400 && claims["iat"]?.integerValue == 1_800_000_000)
        #expect(claims["grant_id"] == .string(harness.grants.all.first?.grantID ?? "?"))
        let plain = try harness.redeem(harness.nativeBody(harness.code()))
        #expect(try TestSigner.opaque.open(plain.accessToken).clientID == "native-app")
    }

    @Test func responseJSON() throws {
        let response = TokenResponse(accessToken: "at", idToken: "it", tokenType: "Bearer", expiresIn: 86_400, scope: "openid email")
        #expect(String(decoding: response.jsonBody(), as: UTF8.self)
            == #"{"access_token":"at","expires_in":86400,"id_token":"it","scope":"openid email","token_type":"Bearer"}"#)
        let oauthOnly = TokenResponse(accessToken: "at", idToken: nil, tokenType: "Bearer", expiresIn: 60, scope: "")
        #expect(!String(decoding: oauthOnly.jsonBody(), as: UTF8.self).contains("id_token"))
    }

    struct FailingSigner: TokenSigner {
        struct Failure: Error {}
        func sign(claims: [String: JSONValue], algorithm: SigningKey.Algorithm, typ: String) throws -> String { throw Failure() }
    }

    @Test func signerFailureIsServerError() {
        let clock = FixedClock(Fixture.epoch)
        let minter = TokenMinter(issuer: Fixture.issuer, signer: FailingSigner(), opaqueTokens: TestSigner.opaque, clock: clock)
        let grant = Grant(grantID: "g", clientID: "native-app", userID: "user-alice", sessionID: nil, scope: "openid", authTime: nil, createdAt: Fixture.epoch)
        let issuance = TokenIssuance(client: Fixture.native, user: Fixture.alice, grant: grant, scopes: ["openid"], audience: nil,
                                     nonce: nil, authTime: nil, sessionID: nil)
        #expect(throws: OAuthError(.serverError, "internal error", detail: "signing failed: Failure()")) { try minter.response(for: issuance) }
    }
}

@Suite("Access-token validation (userinfo)")
struct AccessTokenValidationTests {
    func validate(_ token: String, _ harness: TokenHarness) throws(OAuthError) -> AccessTokenGrant {
        try AccessTokenValidator.validate(bearer: token, keys: TestSigner.keys, opaque: TestSigner.opaque, issuer: Fixture.issuer, grants: harness.grants,
                                          users: harness.users, clock: harness.clock)
    }

    func expectInvalid(_ token: String, _ harness: TokenHarness, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try validate(token, harness)
            Issue.record("accepted", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .invalidToken && error.httpStatus == 401, sourceLocation: sourceLocation)
        }
    }

    @Test func validTokenAndScopedClaims() throws {
        let harness = TokenHarness()
        let response = try harness.redeem(harness.nativeBody(harness.code(scopes: ["openid", "email"])))
        let grant = try validate(response.accessToken, harness)
        #expect(grant.user.userID == "user-alice" && grant.scopes == ["openid", "email"] && grant.clientID == "native-app")
        // E08: only the granted scopes' claims, same sub as the ID token.
        let claims = UserClaims.claims(for: grant.user, scopes: grant.scopes)
        #expect(Set(claims.keys) == ["sub", "email", "email_verified"])
        let idClaims = try verify(try #require(response.idToken)).claims
        #expect(claims["sub"] == idClaims["sub"])
        #expect(String(decoding: UserClaims.userinfoBody(for: grant.user, scopes: ["openid"]), as: UTF8.self) == #"{"sub":"user-alice"}"#)
    }

    /// E07 rows.
    @Test func e07Rejections() throws {
        let harness = TokenHarness()
        let response = try harness.redeem(harness.nativeBody(harness.code(audience: "https://api.example.com")))
        expectInvalid("", harness)
        expectInvalid("garbage", harness)
        expectInvalid(try #require(response.idToken), harness)                      // ID token as bearer
        expectInvalid(String(response.accessToken.dropLast(2)), harness)             // bad signature
        let foreign = try JWS.sign(claims: try verify(response.accessToken).claims, key: TestSigner.foreign, kid: "RS256-kid", typ: "at+jwt")
        expectInvalid(foreign, harness)                                               // another key
        // Wrong issuer, signed by our key.
        var claims = try verify(response.accessToken).claims
        claims["iss"] = .string("https://evil.example/")
        expectInvalid(try TestSigner().sign(claims: claims, algorithm: .rs256, typ: "at+jwt"), harness)
        // Expired.
        harness.clock.advance(by: 86_400)
        expectInvalid(response.accessToken, harness)
    }

    @Test func e07RevokedGrantAndReplay() throws {
        let harness = TokenHarness()
        let code = harness.code()
        let response = try harness.redeem(harness.nativeBody(code))
        _ = try validate(response.accessToken, harness)
        // C01: the replay revokes the grant, so the first access token dies.
        _ = try? harness.redeem(harness.nativeBody(code))
        expectInvalid(response.accessToken, harness)
    }

    @Test func blockedUser() throws {
        let harness = TokenHarness()
        let response = try harness.redeem(harness.nativeBody(harness.code()))
        var alice = Fixture.alice
        alice.blocked = true
        try harness.users.update(alice)
        expectInvalid(response.accessToken, harness)
    }

    @Test(arguments: [("Bearer abc", "abc"), ("bearer abc", "abc"), ("BEARER abc", "abc")])
    func bearerSchemeAnyCase(_ pair: (String, String)) {
        #expect(AccessTokenValidator.bearerToken(fromAuthorization: pair.0) == pair.1)
    }

    @Test func notBearer() {
        #expect(AccessTokenValidator.bearerToken(fromAuthorization: "Basic abc") == nil)
        #expect(AccessTokenValidator.bearerToken(fromAuthorization: "Bearer ") == nil)
        #expect(AccessTokenValidator.bearerToken(fromAuthorization: nil) == nil)
    }
}

@Suite("test-callback verdict")
struct CallbackVerdictTests {
    @Test func allowed() {
        let verdict = CallbackVerdict.evaluate(client: Fixture.native, url: "http://127.0.0.1:5555/cb")
        #expect(verdict.allowed && verdict.entry == "http://127.0.0.1/cb")
        #expect(verdict.text == "allowed (matches http://127.0.0.1/cb)")
    }

    @Test func refused() {
        let verdict = CallbackVerdict.evaluate(client: Fixture.web, url: "https://app.example.com/callbakc")
        #expect(!verdict.allowed && verdict.nearest == Fixture.webCallback)
        #expect(verdict.text == "refused: path differs from https://app.example.com/callback at character 8 (\"/callbakc\" vs \"/callback\")\nnearest allowed callback: https://app.example.com/callback")
        #expect(verdict.fields["entry"] == .some(nil))
    }

    @Test func loopbackOnlyForNative() {
        var client = Fixture.web
        client.callbacks = ["http://127.0.0.1/cb"]
        let verdict = CallbackVerdict.evaluate(client: client, url: "http://127.0.0.1:5555/cb")
        #expect(verdict.reason == "port differs (loopback any-port applies only to native apps)")
    }
}
