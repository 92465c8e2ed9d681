import Crypto
import Foundation
import JOSE
import Model
import Testing
import TestSupport
@testable import OIDC

/// A token endpoint over fresh in-memory stores, with helpers to issue codes.
final class TokenHarness: @unchecked Sendable {
    let clock = MutableClock(Fixture.epoch)
    let clients = Fixture.clients()
    let users = Fixture.users()
    let codes = MemoryCodeStore()
    let grants = MemoryGrantStore()
    /// The audiences a code may name.
    let apis = MemoryAPIStore([API(apiID: "api-1", identifier: "https://api.example.com", name: "API", scopes: ["read:things"],
                                   createdAt: Fixture.epoch)])
    lazy var endpoint = TokenEndpoint(issuer: Fixture.issuer, clients: clients, codes: codes, grants: grants, users: users,
                                      clock: clock, minter: TokenMinter(issuer: Fixture.issuer, signer: TestSigner(), opaqueTokens: TestSigner.opaque, clock: clock),
                                      apis: apis)

    /// Issues a code as /authorize would after login.
    func code(client: Client = Fixture.native, user: User = Fixture.alice, challenge: String? = Fixture.challenge,
              scopes: [String] = ["openid", "profile", "email"], nonce: String? = "nonce-456", audience: String? = nil) -> String {
        let redirect = client.callbacks[0]
        let request = AuthorizationRequest(clientID: client.clientID, redirectURI: redirect, state: "s", nonce: nonce, scopes: scopes,
                                           codeChallenge: challenge, codeChallengeMethod: challenge == nil ? nil : "S256", audience: audience)
        return try! CodeIssuer.issue(request: request, session: Fixture.session(user), user: user, clock: clock, codes: codes)
    }

    func basic(_ id: String, _ secret: String) -> String {
        let form: (String) -> String = { AuthorizationResponse.percentEncode($0) }
        return "Basic " + Data((form(id) + ":" + form(secret)).utf8).base64EncodedString()
    }

    func redeem(_ pairs: [(String, String)], authorization: String? = nil) throws(OAuthError) -> TokenResponse {
        try endpoint.handle(try TokenRequest(pairs: pairs, authorization: authorization))
    }

    /// Auth0.swift's native exchange body.
    func nativeBody(_ code: String, verifier: String? = Fixture.verifier, redirect: String? = Fixture.nativeCallback,
                    clientID: String = "native-app") -> [(String, String)] {
        var body = [("client_id", clientID), ("grant_type", "authorization_code"), ("code", code)]
        if let verifier { body.append(("code_verifier", verifier)) }
        if let redirect { body.append(("redirect_uri", redirect)) }
        return body
    }
}

func expectError(_ code: OAuthError.Code, _ body: () throws(OAuthError) -> TokenResponse,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let response = try body()
        Issue.record("expected \(code.rawValue), got \(response)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == code, "\(error) \(error.detail ?? "")", sourceLocation: sourceLocation)
    }
}

@Suite("Code issuance")
struct CodeIssuanceTests {
    @Test func storesOnlyTheHash() throws {
        let harness = TokenHarness()
        let code = harness.code()
        let stored = try #require(harness.codes.all.first)
        #expect(harness.codes.all.count == 1)
        #expect(stored.codeHash == Digest.sha256Hex(Array(code.utf8)))
        #expect(stored.codeHash != code)
        #expect(try Base64URL.decode(code).count == 32)   // C13: 256 bits, base64url
        #expect(stored.expiresAt.timeIntervalSince(stored.createdAt) == 60)
        #expect(stored.redirectURI == Fixture.nativeCallback && stored.clientID == "native-app" && stored.userID == "user-alice")
        #expect(stored.codeChallenge == Fixture.challenge && stored.nonce == "nonce-456" && stored.sessionID == "sid-1")
        #expect(stored.scope == "openid profile email" && stored.authTime == Fixture.epoch)
    }
}

@Suite("Token endpoint")
struct TokenEndpointTests {
    @Test func happyPathNative() throws {
        let harness = TokenHarness()
        let response = try harness.redeem(harness.nativeBody(harness.code()))
        #expect(response.tokenType == "Bearer" && response.expiresIn == 86_400 && response.scope == "openid profile email")
        #expect(response.idToken != nil && response.refreshToken == nil)
        #expect(harness.grants.all.count == 1)
        #expect(harness.codes.all.first?.grantID == harness.grants.all.first?.grantID)
    }

    @Test func noOpenIDNoIDToken() throws {
        let harness = TokenHarness()
        let response = try harness.redeem(harness.nativeBody(harness.code(scopes: ["profile"])))
        #expect(response.idToken == nil)
        #expect(response.scope == "profile")
    }

    /// C01: replay → invalid_grant and the grant from the first use is revoked.
    @Test func c01ReplayRevokesGrant() throws {
        let harness = TokenHarness()
        let code = harness.code()
        _ = try harness.redeem(harness.nativeBody(code))
        harness.clock.advance(by: 30)
        expectError(.invalidGrant) { () throws(OAuthError) in try harness.redeem(harness.nativeBody(code)) }
        #expect(harness.grants.all.first?.revokedAt != nil)
    }

    /// C02: concurrent redemptions, exactly one succeeds.
    @Test func c02ParallelRedemption() async throws {
        let harness = TokenHarness()
        let code = harness.code()
        let body = harness.nativeBody(code)
        let successes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 { group.addTask { (try? harness.redeem(body)) != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(successes == 1)
    }

    @Test func c03Expired() {
        let harness = TokenHarness()
        let code = harness.code()
        harness.clock.advance(by: 61)
        expectError(.invalidGrant) { () throws(OAuthError) in try harness.redeem(harness.nativeBody(code)) }
    }

    @Test func c04BoundToClient() {
        let harness = TokenHarness()
        let code = harness.code(client: Fixture.web, challenge: nil)
        // Redeemed by the native client (its own callback, no PKCE).
        expectError(.invalidGrant) { () throws(OAuthError) in
            try harness.redeem([("client_id", "native-app"), ("grant_type", "authorization_code"), ("code", code),
                                ("redirect_uri", Fixture.webCallback)])
        }
        // And by another confidential client.
        let code2 = harness.code(client: Fixture.web, challenge: nil)
        expectError(.invalidGrant) { () throws(OAuthError) in
            try harness.redeem([("grant_type", "authorization_code"), ("code", code2), ("redirect_uri", Fixture.webCallback)],
                               authorization: harness.basic("es-app", Fixture.secret))
        }
    }

    @Test(arguments: [nil, Fixture.nativeCallback + "/", "com.example.app://id.example.com/ios/com.example.app/callbacK"])
    func c05RedirectURI(_ redirect: String?) {
        let harness = TokenHarness()
        expectError(.invalidGrant) { () throws(OAuthError) in try harness.redeem(harness.nativeBody(harness.code(), redirect: redirect)) }
    }

    @Test(arguments: ["garbage", "", String(repeating: "A", count: 1_000_000), "x%00"])
    func c06GarbageCode(_ code: String) {
        let harness = TokenHarness()
        _ = harness.code()
        expectError(code.isEmpty ? .invalidRequest : .invalidGrant) { () throws(OAuthError) in try harness.redeem(harness.nativeBody(code)) }
    }

    @Test func c06TruncatedCode() {
        let harness = TokenHarness()
        let code = harness.code()
        expectError(.invalidGrant) { () throws(OAuthError) in try harness.redeem(harness.nativeBody(String(code.dropLast()))) }
    }

    struct GrantTypeCase: Sendable, CustomTestStringConvertible {
        let grantType: String?, expected: OAuthError.Code
        var testDescription: String { grantType ?? "missing" }
    }

    /// C07.
    @Test(arguments: [GrantTypeCase(grantType: nil, expected: .invalidRequest),
                      GrantTypeCase(grantType: "", expected: .invalidRequest),
                      GrantTypeCase(grantType: "password", expected: .unauthorizedClient),
                      GrantTypeCase(grantType: "client_credentials", expected: .unauthorizedClient),
                      GrantTypeCase(grantType: "urn:example:unknown", expected: .unsupportedGrantType),
                      GrantTypeCase(grantType: "implicit", expected: .unsupportedGrantType)])
    func c07GrantTypes(_ row: GrantTypeCase) {
        let harness = TokenHarness()
        var body: [(String, String)] = [("client_id", "native-app"), ("code", harness.code())]
        if let grantType = row.grantType { body.append(("grant_type", grantType)) }
        expectError(row.expected) { () throws(OAuthError) in try harness.redeem(body) }
    }

    @Test func refreshTokenNotYetImplemented() {
        let harness = TokenHarness()
        expectError(.unsupportedGrantType) { () throws(OAuthError) in
            try harness.redeem([("client_id", "native-app"), ("grant_type", "refresh_token"), ("refresh_token", "x")])
        }
    }

    @Test func m2mMayNotUseCodes() {
        let harness = TokenHarness()
        expectError(.unauthorizedClient) { () throws(OAuthError) in
            try harness.redeem([("grant_type", "authorization_code"), ("code", "x")], authorization: harness.basic("m2m-app", Fixture.secret))
        }
    }

    /// C08 (the core's part): duplicated parameters.
    @Test func c08DuplicateParameter() {
        #expect(throws: OAuthError.self) { try TokenRequest(pairs: [("code", "a"), ("code", "b")]) }
        do {
            _ = try TokenRequest(pairs: [("grant_type", "a"), ("grant_type", "a")])
        } catch {
            #expect(error.code == .invalidRequest)
        }
    }

    /// C09: wrong secret and unknown client look the same.
    @Test func c09SameFailure() throws {
        let harness = TokenHarness()
        var errors: [OAuthError] = []
        for auth in [harness.basic("web-app", "wrong"), harness.basic("nobody", Fixture.secret)] {
            do {
                _ = try harness.redeem([("grant_type", "authorization_code"), ("code", "x"), ("redirect_uri", Fixture.webCallback)], authorization: auth)
            } catch {
                errors.append(error)
            }
        }
        #expect(errors.count == 2)
        #expect(errors.allSatisfy { $0.code == .invalidClient && $0.httpStatus == 401 })
        #expect(errors[0].description == errors[1].description)
        #expect(errors[0].jsonBody() == errors[1].jsonBody())
        #expect(errors[0].wwwAuthenticate(.basic, realm: "gatehouse") == "Basic realm=\"gatehouse\"")
    }

    /// C10.
    @Test func c10MixedAuthentication() {
        let harness = TokenHarness()
        let code = harness.code(client: Fixture.web, challenge: nil)
        expectError(.invalidRequest) { () throws(OAuthError) in
            try harness.redeem([("grant_type", "authorization_code"), ("code", code), ("client_secret", Fixture.secret)],
                               authorization: harness.basic("web-app", Fixture.secret))
        }
        expectError(.invalidRequest) { () throws(OAuthError) in
            try harness.redeem([("grant_type", "authorization_code"), ("code", code), ("client_id", "es-app")],
                               authorization: harness.basic("web-app", Fixture.secret))
        }
    }

    /// C11: `%3A`, `%25` and `+` in Basic credentials are form-decoded; malformed base64 → 401.
    @Test func c11BasicEncoding() throws {
        let harness = TokenHarness()
        // Fixture.secret is "s3cr:et%+x": percent-encoded as s3cr%3Aet%25%2Bx.
        let response = try harness.redeem([("grant_type", "authorization_code"), ("code", harness.code(client: Fixture.web, challenge: nil)),
                                           ("redirect_uri", Fixture.webCallback)], authorization: harness.basic("web-app", Fixture.secret))
        #expect(response.idToken != nil)
        for header in ["Basic !!!notbase64", "Basic ", "Basic " + Data("no-colon".utf8).base64EncodedString(),
                       "Basic " + Data("web-app:%zz".utf8).base64EncodedString(), "Basic " + Data([0xFF, 0x3A, 0x41]).base64EncodedString(),
                       "Bearer abc", "Basic " + String(repeating: "A", count: 10_000)] {
            expectError(.invalidClient) { () throws(OAuthError) in
                try harness.redeem([("grant_type", "authorization_code"), ("code", "x")], authorization: header)
            }
        }
    }

    @Test func clientSecretPost() throws {
        let harness = TokenHarness()
        let code = harness.code(client: Fixture.postOnly, challenge: nil)
        _ = try harness.redeem([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Fixture.webCallback),
                                ("client_id", "post-app"), ("client_secret", Fixture.secret)])
        // Basic is not among post-app's methods.
        expectError(.invalidClient) { () throws(OAuthError) in
            try harness.redeem([("grant_type", "authorization_code"), ("code", "x")], authorization: harness.basic("post-app", Fixture.secret))
        }
    }

    @Test func confidentialClientWithoutSecret() {
        let harness = TokenHarness()
        expectError(.invalidClient) { () throws(OAuthError) in
            try harness.redeem([("grant_type", "authorization_code"), ("code", "x"), ("client_id", "web-app")])
        }
    }

    /// L02: a public client that sends a secret is refused, not authenticated.
    @Test func publicClientSendingSecret() {
        let harness = TokenHarness()
        expectError(.invalidClient) { () throws(OAuthError) in
            try harness.redeem(harness.nativeBody(harness.code()) + [("client_secret", "anything")])
        }
        expectError(.invalidClient) { () throws(OAuthError) in
            try harness.redeem(harness.nativeBody(harness.code()), authorization: harness.basic("native-app", "anything"))
        }
    }

    @Test func missingClientID() {
        let harness = TokenHarness()
        expectError(.invalidRequest) { () throws(OAuthError) in try harness.redeem([("grant_type", "authorization_code"), ("code", "x")]) }
    }

    /// B04–B07.
    @Test func b04MissingVerifier() {
        let harness = TokenHarness()
        expectError(.invalidGrant) { () throws(OAuthError) in try harness.redeem(harness.nativeBody(harness.code(), verifier: nil)) }
    }

    @Test func b05WrongThenRightVerifierBurnsTheCode() {
        let harness = TokenHarness()
        let code = harness.code()
        expectError(.invalidGrant) { () throws(OAuthError) in
            try harness.redeem(harness.nativeBody(code, verifier: String(repeating: "x", count: 43)))
        }
        expectError(.invalidGrant) { () throws(OAuthError) in try harness.redeem(harness.nativeBody(code)) }
    }

    @Test func b06DowngradeVerifierWithoutChallenge() {
        let harness = TokenHarness()
        let code = harness.code(client: Fixture.web, challenge: nil)
        expectError(.invalidGrant) { () throws(OAuthError) in
            try harness.redeem([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Fixture.webCallback),
                                ("code_verifier", Fixture.verifier)], authorization: harness.basic("web-app", Fixture.secret))
        }
    }

    @Test(arguments: [String(repeating: "a", count: 42), String(repeating: "a", count: 129), Fixture.verifier + "=", Fixture.verifier.replacingOccurrences(of: "-", with: "+")])
    func b07MalformedVerifier(_ verifier: String) {
        let harness = TokenHarness()
        expectError(.invalidGrant) { () throws(OAuthError) in try harness.redeem(harness.nativeBody(harness.code(), verifier: verifier)) }
    }

    /// D08 (code part): a user blocked between login and redemption.
    @Test func blockedUserCannotRedeem() throws {
        let harness = TokenHarness()
        let code = harness.code()
        var alice = Fixture.alice
        alice.blocked = true
        try harness.users.update(alice)
        expectError(.invalidGrant) { () throws(OAuthError) in try harness.redeem(harness.nativeBody(code)) }
    }
}

@Suite("OAuthError rendering")
struct OAuthErrorRenderingTests {
    @Test func jsonBody() {
        let body = OAuthError(.invalidGrant, "the code/verifier is \"bad\"", detail: "log only").jsonBody()
        #expect(String(decoding: body, as: UTF8.self) == #"{"error":"invalid_grant","error_description":"the code/verifier is \"bad\""}"#)
    }

    @Test func bearerChallenge() {
        let error = OAuthError(.invalidToken, "the access token is invalid")
        #expect(error.wwwAuthenticate(.bearer, realm: "gatehouse") == #"Bearer realm="gatehouse", error="invalid_token", error_description="the access token is invalid""#)
        #expect(error.wwwAuthenticate(.bearer, realm: "gatehouse", tokenPresented: false) == #"Bearer realm="gatehouse""#)
        #expect(error.wwwAuthenticate(.basic, realm: "gatehouse") == nil)
        #expect(OAuthError(.invalidClient, "x").wwwAuthenticate(.basic, realm: "g\"x") == #"Basic realm="gx""#)
    }
}
