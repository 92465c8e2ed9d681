import Crypto
import Foundation
import JOSE
import Model
import Testing
import TestSupport
@testable import OIDC

/// Stores, a minter and the revocation/introspection/client_credentials components over them.
final class LifecycleHarness: @unchecked Sendable {
    static let apiIdentifier = "https://api.example.com/"
    static let otherIdentifier = "https://other.example.com/"

    let clock = MutableClock(Fixture.epoch)
    let clients = Fixture.clients()
    let users = Fixture.users()
    let grants = MemoryGrantStore()
    let lookup = MemoryLifecycleLookup()
    let apis = MemoryAPIStore([
        API(apiID: "api-1", identifier: LifecycleHarness.apiIdentifier, name: "Orders", scopes: ["read:orders", "write:orders", "admin"],
            tokenLifetime: 600, signingAlgorithm: "ES256", createdAt: Fixture.epoch),
        API(apiID: "api-2", identifier: LifecycleHarness.otherIdentifier, name: "Other", scopes: ["x"], createdAt: Fixture.epoch + 1),
    ])
    lazy var minter = TokenMinter(issuer: Fixture.issuer, signer: TestSigner(), opaqueTokens: TestSigner.opaque, clock: clock)
    lazy var revoker = TokenRevoker(issuer: Fixture.issuer, clients: clients, grants: grants, lookup: lookup, keys: TestSigner.keys, opaqueTokens: TestSigner.opaque, clock: clock)
    lazy var introspector = TokenIntrospector(issuer: Fixture.issuer, clients: clients, grants: grants, users: users, apis: apis,
                                              lookup: lookup, keys: TestSigner.keys, opaqueTokens: TestSigner.opaque, clock: clock)
    lazy var tokenEndpoint: TokenEndpoint = {
        var endpoint = TokenEndpoint(issuer: Fixture.issuer, clients: clients, codes: MemoryCodeStore(), grants: grants, users: users,
                                     clock: clock, minter: minter)
        endpoint.apis = apis
        return endpoint
    }()

    /// A user grant and its access token, as the authorization code grant would issue them.
    func userToken(client: Client = Fixture.native, user: User = Fixture.alice, audience: String? = nil) throws -> (grant: Grant, token: String) {
        let grant = Grant(grantID: "g-" + Random.token(bytes: 16), clientID: client.clientID, userID: user.userID, sessionID: "sid-1",
                          scope: "openid profile offline_access", audience: audience, authTime: clock.now, createdAt: clock.now)
        try grants.create(grant)
        let issuance = TokenIssuance(client: client, user: user, grant: grant, scopes: ["openid", "profile", "offline_access"],
                                     audience: audience, nonce: nil, authTime: clock.now, sessionID: "sid-1")
        return (grant, try minter.accessToken(for: issuance, now: clock.now))
    }

    /// A stored refresh token of `grant`.
    func refreshToken(of grant: Grant) -> String {
        let token = Random.token(bytes: 32)
        lookup.add(hash: SecretDigest.hash(token), RefreshToken(
            tokenHash: SecretDigest.hash(token), grantID: grant.grantID, clientID: grant.clientID, userID: grant.userID ?? "", scope: grant.scope,
            issuedAt: clock.now, expiresAt: clock.now + 86_400, lastUsedAt: clock.now))
        return token
    }

    func revoke(_ pairs: [(String, String)]) throws(OAuthError) -> RevocationResult {
        try revoker.revoke(try TokenRequest(pairs: pairs))
    }

    func introspect(_ pairs: [(String, String)]) throws(OAuthError) -> Introspection {
        try introspector.introspect(try TokenRequest(pairs: pairs))
    }

    static func web(_ extra: [(String, String)]) -> [(String, String)] {
        [("client_id", Fixture.web.clientID), ("client_secret", Fixture.secret)] + extra
    }

    func isRevoked(_ grant: Grant) throws -> Bool { try grants.find(grantID: grant.grantID)?.revokedAt != nil }

    /// A JWS with `alg: none` over the given claims.
    static func unsigned(_ claims: [String: JSONValue]) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"none","kid":"RS256-kid","typ":"at+jwt"}"#.utf8))
        let body = Base64URL.encode(JSONBody.encode(claims))
        return header + "." + body + "."
    }
}
