import Crypto
import Foundation
import JOSE
import Model
import Testing
import TestSupport
@testable import OIDC

/// The token endpoint's scope-and-audience phase: one rule per kind of grant. User grants ask for a
/// registered API (or none) and carry the scopes that API defines; the password grants pass the same
/// rule as `/authorize`.
@Suite("Scope and audience phase")
struct ScopeAndAudienceTests {
    static let api = "https://api.example.com"

    /// A token endpoint with the password grants over memory stores sharing one database.
    final class PasswordHarness: @unchecked Sendable {
        let clock = MutableClock(Fixture.epoch)
        let database = MemoryDatabase()
        let throttle = MemoryLoginThrottleStore()
        lazy var users = TestSupport.MemoryUserStore(database: database)
        lazy var grants = TestSupport.MemoryGrantStore(database: database)
        lazy var signIns = MemorySignInStore(database: database, throttle: throttle)
        let apis = MemoryAPIStore([API(apiID: "api-1", identifier: ScopeAndAudienceTests.api, name: "Things",
                                       scopes: ["read:things", "write:things"], createdAt: Fixture.epoch)])
        let app = Client(clientID: "native-app", name: "iOS", type: .native,
                         grantTypes: [.authorizationCode, .refreshToken, .passwordRealm, .password],
                         callbacks: [Fixture.nativeCallback], createdAt: Fixture.epoch)
        lazy var endpoint = TokenEndpoint(
            issuer: Fixture.issuer, clients: TestSupport.MemoryClientStore(database: database), codes: MemoryCodeStore(), grants: grants,
            users: users, clock: clock, minter: TokenMinter(issuer: Fixture.issuer, signer: TestSigner(), opaqueTokens: TestSigner.opaque, clock: clock),
            refreshTokens: RefreshTokens(store: MemoryRefreshTokenStore(database: database), successorKey: Array(repeating: 7, count: 32)),
            apis: apis,
            passwordGrants: PasswordGrantPolicy(credentials: CredentialCheck(users: users, throttle: LoginThrottle(store: throttle, clock: clock)),
                                                signIns: signIns, connection: "Username-Password-Authentication"))

        init() throws {
            try TestSupport.MemoryClientStore(database: database).create(app)
            var alice = Fixture.alice
            alice.passwordHash = try PasswordHash.hash("right password")
            try users.create(alice)
        }

        /// Auth0.swift's `login(usernameOrEmail:password:realmOrConnection:audience:scope:)` body.
        func login(audience: String?, scope: String = "openid profile offline_access read:things",
                   context: inout RequestContext) throws(OAuthError) -> TokenResponse {
            var body = [("client_id", app.clientID), ("grant_type", Client.GrantType.passwordRealm.rawValue),
                        ("username", Fixture.alice.email), ("password", "right password"),
                        ("realm", "Username-Password-Authentication"), ("scope", scope)]
            if let audience { body.append(("audience", audience)) }
            return try endpoint.handle(try TokenRequest(pairs: body), context: &context)
        }
    }

    static func claims(_ jwt: String) throws -> [String: JSONValue] { try RefreshHarness.claims(jwt) }

    /// An audience that is no registered API: the same refusal `/authorize` gives, and nothing is
    /// committed — no login counted, no grant.
    @Test(arguments: ["https://unknown.example.com/", "", "https://api.example.com/"])
    func thePasswordGrantRefusesAnUnregisteredAudience(_ audience: String) throws {
        let harness = try PasswordHarness()
        var context = RequestContext(clientIP: "198.51.100.7")
        do {
            _ = try harness.login(audience: audience, context: &context)
            Issue.record("an unregistered audience got a token")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.description == AudienceRule.unregistered)
        }
        #expect(try harness.users.find(userID: Fixture.alice.userID)?.loginsCount == 0)
        #expect(harness.signIns.commitCount == 0)
        #expect(context.events.isEmpty)
    }

    /// A registered audience: a token for that API, with the API's scopes asked for, others dropped;
    /// the login is committed and reported once.
    @Test func thePasswordGrantIssuesATokenForARegisteredAPI() throws {
        let harness = try PasswordHarness()
        var context = RequestContext(clientIP: "198.51.100.7")
        let response = try harness.login(audience: Self.api, scope: "openid profile offline_access read:things delete:everything",
                                         context: &context)
        #expect(response.scope == "openid profile offline_access read:things")
        let claims = try Self.claims(response.accessToken)
        #expect(claims["aud"] == .array([.string(Self.api), .string(Fixture.issuer + "userinfo")]))
        #expect(claims["scope"] == .string("openid profile offline_access read:things"))
        #expect(response.refreshToken != nil)
        #expect(context.events.map(\.kind) == [.loginSucceeded])
        #expect(harness.signIns.commitCount == 1)
        // Refresh keeps the API scope (the family's).
        let refreshed = try harness.endpoint.handle(try TokenRequest(pairs: [
            ("client_id", harness.app.clientID), ("grant_type", "refresh_token"), ("refresh_token", try #require(response.refreshToken)),
        ]))
        #expect(refreshed.scope == "openid profile offline_access read:things")
        #expect(try Self.claims(refreshed.accessToken)["scope"] == .string("openid profile offline_access read:things"))
    }

    /// Without an audience only OpenID scopes are granted (the token is for userinfo).
    @Test func withoutAnAudienceOnlyOpenIDScopes() throws {
        let harness = try PasswordHarness()
        var context = RequestContext(clientIP: "198.51.100.7")
        let response = try harness.login(audience: nil, context: &context)
        #expect(response.scope == "openid profile offline_access")
    }

    /// The code grant: a code for the API carries its scopes into the access token and the refresh token.
    @Test func theCodeGrantCarriesTheAPIScopes() throws {
        let harness = RefreshHarness()
        let response = try harness.signIn(scopes: ["openid", "profile", "offline_access", "read:things", "write:things"],
                                          audience: Self.api)
        #expect(response.scope == "openid profile offline_access read:things")
        #expect(try RefreshHarness.claims(response.accessToken)["scope"] == .string("openid profile offline_access read:things"))
        let token = try #require(response.refreshToken)
        // Narrowing to the API scope alone works; asking beyond the family is invalid_scope.
        let narrowed = try harness.refresh(token, extra: [("scope", "openid read:things")])
        #expect(narrowed.scope == "openid read:things")
        let next = try #require(narrowed.refreshToken)
        expectError(.invalidScope) { () throws(OAuthError) in try harness.refresh(next, extra: [("scope", "openid write:things")]) }
    }

    /// The scopes the phase keeps, by rule (table-driven).
    @Test(arguments: [
        (["openid", "read:things", "bogus"], true, ["openid", "read:things"]),
        (["read:things", "email", "openid", "openid"], true, ["openid", "email", "read:things"]),
        (["openid", "read:things"], false, ["openid"]),
        (["offline_access", "profile"], false, ["profile", "offline_access"]),
        ([String](), true, [String]()),
    ])
    func grantedScopes(requested: [String], withAPI: Bool, expected: [String]) {
        let api = API(apiID: "a", identifier: Self.api, name: "A", scopes: ["read:things", "x"], createdAt: Fixture.epoch)
        #expect(ScopeList.granted(requested, api: withAPI ? api : nil) == expected)
    }
}
