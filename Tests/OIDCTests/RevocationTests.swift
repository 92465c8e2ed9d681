import Crypto
import Foundation
import JOSE
import Model
import Testing
import TestSupport
@testable import OIDC

/// RFC 7009 revocation: whole families, no oracle for other clients' tokens, client authentication.
@Suite struct RevocationTests {
    @Test func aPublicClientRevokesItsRefreshTokenFamilyByClientIDAlone() throws {
        let harness = LifecycleHarness()
        let (grant, _) = try harness.userToken()
        let refresh = harness.refreshToken(of: grant)
        // Auth0.swift: {"token":…, "client_id":…}, no token_type_hint.
        let result = try harness.revoke([("token", refresh), ("client_id", Fixture.native.clientID)])
        #expect(result == .revoked(grantID: grant.grantID, kind: .refreshToken))
        #expect(try harness.isRevoked(grant))
    }

    @Test func anAccessTokenRevokesItsGrant() throws {
        let harness = LifecycleHarness()
        let (grant, access) = try harness.userToken()
        let result = try harness.revoke([("token", access), ("client_id", Fixture.native.clientID), ("token_type_hint", "access_token")])
        #expect(result == .revoked(grantID: grant.grantID, kind: .accessToken))
        #expect(try harness.isRevoked(grant))
        // Already revoked: still fine, nothing more happens.
        if case .ignored = try harness.revoke([("token", access), ("client_id", Fixture.native.clientID)]) {} else { Issue.record("expected ignored") }
    }

    @Test func aConfidentialClientRevokesWithItsSecret() throws {
        let harness = LifecycleHarness()
        let (grant, access) = try harness.userToken(client: Fixture.web)
        #expect(try harness.revoke(LifecycleHarness.web([("token", access)])) == .revoked(grantID: grant.grantID, kind: .accessToken))
    }

    /// No oracle: another client's token answers like an unknown one and stays valid.
    @Test func anotherClientsTokenIsIgnoredAndKeepsWorking() throws {
        let harness = LifecycleHarness()
        let (grant, access) = try harness.userToken(client: Fixture.native)
        let refresh = harness.refreshToken(of: grant)
        for token in [access, refresh] {
            let result = try harness.revoke(LifecycleHarness.web([("token", token)]))
            guard case .ignored = result else { Issue.record("expected ignored, got \(result)"); continue }
        }
        #expect(try !harness.isRevoked(grant))
    }

    @Test(arguments: ["unknown-token", "a.b.c", "", String(repeating: "x", count: 70_000)])
    func unknownOrMalformedTokensAreIgnored(token: String) throws {
        let harness = LifecycleHarness()
        if token.isEmpty {
            #expect(throws: OAuthError(.invalidRequest, "token is required")) { try harness.revoke([("client_id", Fixture.native.clientID), ("token", "")]) }
            return
        }
        guard case .ignored = try harness.revoke([("token", token), ("client_id", Fixture.native.clientID)]) else {
            Issue.record("expected ignored"); return
        }
    }

    /// A forged token (alg none, or signed by another key) naming a real grant revokes nothing.
    @Test func forgedAccessTokensRevokeNothing() throws {
        let harness = LifecycleHarness()
        let (grant, _) = try harness.userToken()
        let claims: [String: JSONValue] = ["iss": .string(Fixture.issuer), "sub": .string(Fixture.alice.userID),
                                           "client_id": .string(Fixture.native.clientID), "grant_id": .string(grant.grantID),
                                           "aud": .string(Fixture.issuer + "userinfo"), "exp": .integer(2_000_000_000)]
        let foreign = try JWS.sign(claims: claims, key: TestSigner.foreign, kid: "RS256-kid", typ: "at+jwt")
        let foreignOpaque = try OpaqueAccessTokens(key: Array(repeating: 3, count: 32)).seal(OpaqueAccessTokenPayload(
            grantID: grant.grantID, userID: Fixture.alice.userID, clientID: Fixture.native.clientID, scope: "openid",
            issuedAt: 0, expiresAt: 2_000_000_000))
        for token in [LifecycleHarness.unsigned(claims), foreign, foreignOpaque] {
            guard case .ignored = try harness.revoke([("token", token), ("client_id", Fixture.native.clientID)]) else {
                Issue.record("expected ignored"); continue
            }
        }
        #expect(try !harness.isRevoked(grant))
    }

    @Test func badClientAuthenticationIsInvalidClient() throws {
        let harness = LifecycleHarness()
        let (_, access) = try harness.userToken(client: Fixture.web)
        let cases: [[(String, String)]] = [
            [("client_id", Fixture.web.clientID), ("client_secret", "wrong"), ("token", access)],
            [("client_id", Fixture.web.clientID), ("token", access)],  // confidential without a secret
            [("client_id", "nobody"), ("token", access)],
        ]
        for pairs in cases {
            do {
                _ = try harness.revoke(pairs)
                Issue.record("expected invalid_client")
            } catch {
                #expect(error.code == .invalidClient)
                #expect(error.httpStatus == 401)
            }
        }
    }
}

/// RFC 7662 introspection: confidential callers, their own tokens, granted APIs when enabled.
@Suite struct IntrospectionTests {
    @Test func aConfidentialClientSeesItsOwnAccessToken() throws {
        let harness = LifecycleHarness()
        let (grant, access) = try harness.userToken(client: Fixture.web)
        let result = try harness.introspect(LifecycleHarness.web([("token", access)]))
        #expect(result.isActive)
        let members = result.members
        #expect(members["token_type"] == .string("access_token"))
        #expect(members["client_id"] == .string(Fixture.web.clientID))
        #expect(members["sub"] == .string(Fixture.alice.userID))
        #expect(members["iss"] == .string(Fixture.issuer))
        #expect(members["scope"] == .string("openid profile offline_access"))
        #expect(members["aud"] == .string(Fixture.issuer + "userinfo"))
        #expect(members["exp"]?.integerValue == Int64(Fixture.epoch.timeIntervalSince1970) + 86_400)
        #expect(members["iat"]?.integerValue == Int64(Fixture.epoch.timeIntervalSince1970))
        #expect(access.hasPrefix("at_") && members["jti"] == nil)  // opaque: its contents, no id of its own

        try harness.grants.revoke(grantID: grant.grantID, at: harness.clock.now, reason: "test")
        #expect(try harness.introspect(LifecycleHarness.web([("token", access)])) == .inactive)
    }

    /// An opaque access token altered, sealed under another key, or past its expiry is inactive.
    @Test func aBrokenOrExpiredOpaqueTokenIsInactive() throws {
        let harness = LifecycleHarness()
        let (grant, access) = try harness.userToken(client: Fixture.web)
        var bytes = try Base64URL.decode(access.dropFirst(3))
        bytes[bytes.count / 2] ^= 1
        let foreign = try OpaqueAccessTokens(key: Array(repeating: 5, count: 32)).seal(OpaqueAccessTokenPayload(
            grantID: grant.grantID, userID: Fixture.alice.userID, clientID: Fixture.web.clientID, scope: "openid",
            issuedAt: 0, expiresAt: 2_000_000_000))
        for token in ["at_" + Base64URL.encode(bytes), String(access.dropLast(8)), foreign] {
            #expect(try harness.introspect(LifecycleHarness.web([("token", token)])) == .inactive)
        }
        #expect(try harness.introspect(LifecycleHarness.web([("token", access)])).isActive)
        harness.clock.advance(by: 86_400)
        #expect(try harness.introspect(LifecycleHarness.web([("token", access)])) == .inactive)
    }

    /// An API's JWT access token carries its own `jti`.
    @Test func anAPITokenIntrospectsWithItsJTI() throws {
        let harness = LifecycleHarness()
        let (_, access) = try harness.userToken(client: Fixture.web, audience: LifecycleHarness.apiIdentifier)
        let members = try harness.introspect(LifecycleHarness.web([("token", access)])).members
        #expect(members["active"] == .bool(true) && members["jti"]?.stringValue?.isEmpty == false)
        #expect(members["aud"] == .array([.string(LifecycleHarness.apiIdentifier), .string(Fixture.issuer + "userinfo")]))
    }

    @Test func refreshTokensAreActiveUntilRevokedOrExpired() throws {
        let harness = LifecycleHarness()
        let (grant, _) = try harness.userToken(client: Fixture.web)
        let refresh = harness.refreshToken(of: grant)
        let result = try harness.introspect(LifecycleHarness.web([("token", refresh), ("token_type_hint", "refresh_token")]))
        #expect(result.isActive)
        #expect(result.members["token_type"] == .string("refresh_token"))
        #expect(result.members["sub"] == .string(Fixture.alice.userID))
        #expect(result.members["client_id"] == .string(Fixture.web.clientID))
        harness.clock.advance(by: 86_401)
        #expect(try harness.introspect(LifecycleHarness.web([("token", refresh)])) == .inactive)
    }

    @Test func foreignUnknownExpiredAndForgedTokensAreExactlyInactive() throws {
        let harness = LifecycleHarness()
        let (nativeGrant, nativeAccess) = try harness.userToken(client: Fixture.native)
        let nativeRefresh = harness.refreshToken(of: nativeGrant)
        let (_, webAccess) = try harness.userToken(client: Fixture.web)
        for token in [nativeAccess, nativeRefresh, "nope", "a.b.c", LifecycleHarness.unsigned(["iss": .string(Fixture.issuer)])] {
            let result = try harness.introspect(LifecycleHarness.web([("token", token)]))
            #expect(result == .inactive)
            #expect(String(decoding: result.jsonBody(), as: UTF8.self) == #"{"active":false}"#)
        }
        harness.clock.advance(by: 86_400)
        #expect(try harness.introspect(LifecycleHarness.web([("token", webAccess)])) == .inactive)
    }

    @Test func publicClientsMayNotIntrospect() throws {
        let harness = LifecycleHarness()
        let (_, access) = try harness.userToken()
        #expect(throws: OAuthError.self) { try harness.introspect([("client_id", Fixture.native.clientID), ("token", access)]) }
        do {
            _ = try harness.introspect([("client_id", Fixture.native.clientID), ("token", access)])
        } catch {
            #expect(error.code == .invalidClient)
        }
    }

    /// A resource server may introspect tokens for its API only when the operator enabled it and it holds a grant.
    @Test func aResourceServerIntrospectsTokensForItsGrantedAPIWhenEnabled() throws {
        let harness = LifecycleHarness()
        let (_, access) = try harness.userToken(client: Fixture.native, audience: LifecycleHarness.apiIdentifier)
        let (_, userinfoOnly) = try harness.userToken(client: Fixture.native)
        let asResourceServer = LifecycleHarness.web([("token", access)])
        #expect(try harness.introspect(asResourceServer) == .inactive)  // not enabled, no grant

        var web = Fixture.web
        web.introspectionEnabled = true
        try harness.clients.update(web)
        #expect(try harness.introspect(asResourceServer) == .inactive)  // enabled, no grant

        try harness.apis.grant(ClientGrant(clientID: web.clientID, apiID: "api-1", scopes: [], createdAt: Fixture.epoch))
        let result = try harness.introspect(asResourceServer)
        #expect(result.isActive)
        #expect(result.members["aud"] == .array([.string(LifecycleHarness.apiIdentifier), .string(Fixture.issuer + "userinfo")]))
        #expect(result.members["client_id"] == .string(Fixture.native.clientID))
        // A token without that API in its audience stays invisible.
        #expect(try harness.introspect(LifecycleHarness.web([("token", userinfoOnly)])) == .inactive)
    }
}
