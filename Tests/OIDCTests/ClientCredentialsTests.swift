import Crypto
import Foundation
import JOSE
import Model
import Testing
import TestSupport
@testable import OIDC

/// grant_type=client_credentials: audience resolution, scope intersection, errors, the minted token.
@Suite struct ClientCredentialsTests {
    static func body(_ extra: [(String, String)], client: String = Fixture.m2m.clientID) -> [(String, String)] {
        [("grant_type", "client_credentials"), ("client_id", client), ("client_secret", Fixture.secret)] + extra
    }

    func grantOrders(_ harness: LifecycleHarness, scopes: [String] = ["read:orders", "write:orders"]) throws {
        try harness.apis.grant(ClientGrant(clientID: Fixture.m2m.clientID, apiID: "api-1", scopes: scopes, createdAt: Fixture.epoch))
    }

    func claims(_ token: String) throws -> (VerifiedJWS, [String: JSONValue]) {
        let verified = try JWS.verify(token, keys: TestSigner.keys)
        return (verified, try verified.claims())
    }

    @Test func anAudienceWithoutScopeGetsEveryGrantedScopeInAnAPIToken() throws {
        let harness = LifecycleHarness()
        try grantOrders(harness)
        let response = try harness.tokenEndpoint.handle(try TokenRequest(pairs: Self.body([("audience", LifecycleHarness.apiIdentifier)])))
        #expect(response.scope == "read:orders write:orders")
        #expect(response.expiresIn == 600)
        #expect(response.idToken == nil && response.refreshToken == nil)
        #expect(response.tokenType == "Bearer")
        let (verified, claims) = try claims(response.accessToken)
        #expect(verified.algorithm == .es256)  // the API's algorithm
        #expect(verified.header["typ"] == .string("at+jwt"))
        #expect(claims["aud"] == .string(LifecycleHarness.apiIdentifier))
        #expect(claims["sub"] == .string(Fixture.m2m.clientID))
        #expect(claims["client_id"] == .string(Fixture.m2m.clientID))
        #expect(claims["iss"] == .string(Fixture.issuer))
        #expect(claims["scope"] == .string("read:orders write:orders"))
        #expect(claims["exp"]?.integerValue == (claims["iat"]?.integerValue ?? 0) + 600)
        // The token names its grant, which is not stored: issuing a machine token writes nothing.
        let grantID = try #require(claims["grant_id"]?.stringValue)
        #expect(grantID.utf8.count >= 22)
        #expect(try harness.grants.find(grantID: grantID) == nil)
    }

    @Test(arguments: [
        ("read:orders", "read:orders"),
        ("write:orders read:orders", "read:orders write:orders"),
        ("", "read:orders write:orders"),  // none asked: every granted scope
    ])
    func requestedScopesWithinTheGrantAreGranted(requested: String, granted: String) throws {
        let harness = LifecycleHarness()
        try grantOrders(harness)
        let response = try harness.tokenEndpoint.handle(try TokenRequest(pairs: Self.body([
            ("audience", LifecycleHarness.apiIdentifier), ("scope", requested)])))
        #expect(response.scope == granted)
        #expect(try claims(response.accessToken).1["scope"] == .string(granted))
    }

    /// As Auth0: any requested scope outside the client grant refuses the request (403 access_denied),
    /// naming the scopes; nothing is issued.
    @Test(arguments: [
        ("read:orders admin unknown", "admin unknown"),
        ("admin", "admin"),
    ])
    func aScopeOutsideTheGrantIsAccessDenied(requested: String, refused: String) throws {
        let harness = LifecycleHarness()
        try grantOrders(harness)
        do {
            _ = try harness.tokenEndpoint.handle(try TokenRequest(pairs: Self.body([
                ("audience", LifecycleHarness.apiIdentifier), ("scope", requested)])))
            Issue.record("a scope outside the grant was issued")
        } catch {
            #expect(error.code == .accessDenied && error.httpStatus == 403)
            #expect(error.description == "Client has not been granted scopes: \(refused)")
        }
    }

    @Test func withoutAudienceTheOnlyGrantedAPIIsUsedElseInvalidRequest() throws {
        let harness = LifecycleHarness()
        // No grant at all.
        #expect(throws: OAuthError.self) { try harness.tokenEndpoint.handle(try TokenRequest(pairs: Self.body([]))) }
        try grantOrders(harness)
        let response = try harness.tokenEndpoint.handle(try TokenRequest(pairs: Self.body([])))
        #expect(try claims(response.accessToken).1["aud"] == .string(LifecycleHarness.apiIdentifier))
        try harness.apis.grant(ClientGrant(clientID: Fixture.m2m.clientID, apiID: "api-2", scopes: ["x"], createdAt: Fixture.epoch))
        do {
            _ = try harness.tokenEndpoint.handle(try TokenRequest(pairs: Self.body([])))
            Issue.record("expected invalid_request")
        } catch {
            #expect(error.code == .invalidRequest)
        }
    }

    @Test(arguments: [LifecycleHarness.otherIdentifier, "https://unknown.example.com/", "https://API.example.com/"])
    func anAPINotGrantedOrUnknownIsAccessDenied(audience: String) throws {
        let harness = LifecycleHarness()
        try grantOrders(harness)
        do {
            _ = try harness.tokenEndpoint.handle(try TokenRequest(pairs: Self.body([("audience", audience)])))
            Issue.record("expected access_denied")
        } catch {
            #expect(error.code == .accessDenied)
            #expect(error.httpStatus == 403)
        }
    }

    @Test func publicClientsAreUnauthorizedClient() throws {
        let harness = LifecycleHarness()
        var native = Fixture.native
        native.grantTypes.append(.clientCredentials)
        try harness.clients.update(native)
        for clientID in [Fixture.native.clientID] {
            do {
                _ = try harness.tokenEndpoint.handle(try TokenRequest(pairs: [("grant_type", "client_credentials"), ("client_id", clientID),
                                                                             ("audience", LifecycleHarness.apiIdentifier)]))
                Issue.record("expected unauthorized_client")
            } catch {
                #expect(error.code == .unauthorizedClient)
            }
        }
        // A regular web app without the grant type is refused by dispatch.
        do {
            _ = try harness.tokenEndpoint.handle(try TokenRequest(pairs: Self.body([], client: Fixture.web.clientID)))
            Issue.record("expected unauthorized_client")
        } catch {
            #expect(error.code == .unauthorizedClient)
        }
    }

    @Test func theMachineTokenCanBeIntrospectedAndRevokedByItsClient() throws {
        let harness = LifecycleHarness()
        try grantOrders(harness)
        let token = try harness.tokenEndpoint.handle(try TokenRequest(pairs: Self.body([("audience", LifecycleHarness.apiIdentifier)]))).accessToken
        let auth = [("client_id", Fixture.m2m.clientID), ("client_secret", Fixture.secret), ("token", token)]
        let active = try harness.introspect(auth)
        #expect(active.isActive)
        #expect(active.members["sub"] == .string(Fixture.m2m.clientID))
        guard case .revoked = try harness.revoke(auth) else { Issue.record("expected revoked"); return }
        #expect(try harness.introspect(auth) == .inactive)
        #expect(try harness.revoke(auth) == .ignored("grant \(try grantID(of: token)) already revoked"), "a second one changes nothing")
    }

    func grantID(of token: String) throws -> String { try #require(try claims(token).1["grant_id"]?.stringValue) }

    /// A machine grant stored by an earlier version keeps being judged by its row: revoked there,
    /// its token is inactive, and revoking the token again goes to the row.
    @Test func aTokenWhoseGrantHasARowIsJudgedByIt() throws {
        let harness = LifecycleHarness()
        try grantOrders(harness)
        let token = try harness.tokenEndpoint.handle(try TokenRequest(pairs: Self.body([("audience", LifecycleHarness.apiIdentifier)]))).accessToken
        let grantID = try grantID(of: token)
        try harness.grants.create(Grant(grantID: grantID, clientID: Fixture.m2m.clientID, userID: nil, sessionID: nil, scope: "read:orders",
                                        audience: LifecycleHarness.apiIdentifier, authTime: nil, createdAt: Fixture.epoch))
        let auth = [("client_id", Fixture.m2m.clientID), ("client_secret", Fixture.secret), ("token", token)]
        #expect(try harness.introspect(auth).isActive)
        guard case .revoked = try harness.revoke(auth) else { Issue.record("expected revoked"); return }
        #expect(try harness.grants.find(grantID: grantID)?.revokedAt != nil, "the row was revoked")
        #expect(try !harness.grants.isMachineGrantRevoked(grantID: grantID), "nothing remembered beside the row")
        #expect(try harness.introspect(auth) == .inactive)
    }

    /// A row of another application or of a user under the token's grant id never makes it live.
    @Test func aRowThatDoesNotMatchTheTokenMakesItInactive() throws {
        let harness = LifecycleHarness()
        try grantOrders(harness)
        let token = try harness.tokenEndpoint.handle(try TokenRequest(pairs: Self.body([("audience", LifecycleHarness.apiIdentifier)]))).accessToken
        try harness.grants.create(Grant(grantID: try grantID(of: token), clientID: Fixture.web.clientID, userID: nil, sessionID: nil,
                                        scope: "", authTime: nil, createdAt: Fixture.epoch))
        #expect(try harness.introspect([("client_id", Fixture.m2m.clientID), ("client_secret", Fixture.secret), ("token", token)]) == .inactive)
    }

    /// /authorize audience: registered APIs and the userinfo URL pass; unknown ones are invalid_request,
    /// redirected with `state` — one of the Authorizer's checks (`AudienceRule`).
    @Test func authorizeAudienceMustBeARegisteredAPI() throws {
        let harness = LifecycleHarness()
        #expect(try AudienceRule.resolve(LifecycleHarness.apiIdentifier, apis: harness.apis, issuer: Fixture.issuer)?.apiID == "api-1")
        #expect(try AudienceRule.resolve(Fixture.issuer + "userinfo", apis: harness.apis, issuer: Fixture.issuer) == nil)
        for bad in ["https://unknown.example.com/", "", "https://api.example.com"] {
            #expect(throws: OAuthError(.invalidRequest, AudienceRule.unregistered, detail: "unknown audience \(bad.debugDescription)")) {
                try AudienceRule.resolve(bad, apis: harness.apis, issuer: Fixture.issuer)
            }
        }
        let authorizer = Authorizer(issuer: Fixture.issuer, clients: Fixture.clients(), clock: FixedClock(Fixture.epoch),
                                    hintKeys: TestSigner.keys, apis: harness.apis)
        let screened = authorizer.decide(n([("audience", "https://unknown.example.com/")]), session: nil, user: nil)
        guard case .errorRedirect(let target, let error) = screened else { Issue.record("expected an error redirect"); return }
        #expect(target.redirectURI == Fixture.nativeCallback)
        #expect(target.state == Fixture.nativeAuthorize().first { $0.0 == "state" }?.1)
        #expect(error.code == .invalidRequest)
        guard case .login(let good, reason: .noSession) = authorizer.decide(n([("audience", LifecycleHarness.apiIdentifier)]),
                                                                             session: nil, user: nil) else {
            Issue.record("a registered audience was refused"); return
        }
        #expect(good.audience == LifecycleHarness.apiIdentifier)
        // The user's access token then names the API and userinfo.
        let (_, token) = try harness.userToken(audience: LifecycleHarness.apiIdentifier)
        #expect(try claims(token).1["aud"] == .array([.string(LifecycleHarness.apiIdentifier), .string(Fixture.issuer + "userinfo")]))
    }
}
