import Foundation
import Testing
import TestSupport

/// Revocation, introspection and client_credentials against the real daemon.
@Suite struct LifecycleTests {
    /// Signs Alice in to a new native app and returns the app and its token response.
    static func signedIn(_ fixture: SignInFixture, extra: [String] = []) throws -> (clientID: String, body: [String: Any], browser: Browser) {
        let app = try fixture.createApp(extra: extra)
        try fixture.createUser()
        let browser = Browser(directory: fixture.daemon.directory)
        let code = try #require(queryParameters(of: try fixture.signIn(browser, clientID: app.clientID))["code"])
        let token = try fixture.redeem(code: code, clientID: app.clientID)
        #expect(token.status == 200, "\(token.text)")
        return (app.clientID, try token.json(), browser)
    }

    static func userinfo(_ fixture: SignInFixture, _ accessToken: String) throws -> Int {
        try Curl.get(fixture.issuer + "userinfo", ["-H", "Authorization: Bearer \(accessToken)"]).status
    }

    @Test func revokingAnAccessTokenAsAuth0SwiftDoesKillsItAndUnknownTokensStillGet200() throws {
        let fixture = try SignInFixture()
        let (clientID, body, _) = try Self.signedIn(fixture)
        let accessToken = try #require(body["access_token"] as? String)
        let other = try fixture.createApp()
        let client = Browser(directory: fixture.daemon.directory)

        // Another client's revocation: 200, and the token keeps working (no oracle, no effect).
        let foreign = try client.post(fixture.issuer + "oauth/revoke", json: ["token": accessToken, "client_id": other.clientID])
        #expect(foreign.status == 200)
        #expect(foreign.body.isEmpty)
        #expect(try Self.userinfo(fixture, accessToken) == 200)

        // Unknown token: 200 with an empty body.
        let unknown = try client.post(fixture.issuer + "oauth/revoke", json: ["token": "not-a-token", "client_id": clientID])
        #expect(unknown.status == 200)
        #expect(unknown.body.isEmpty)

        // Unknown client: 401 invalid_client JSON.
        let badClient = try client.post(fixture.issuer + "oauth/revoke", form: [("token", accessToken), ("client_id", "nobody")])
        #expect(badClient.status == 401)
        #expect(try badClient.json()["error"] as? String == "invalid_client")

        // Auth0.swift's call: JSON body, no token_type_hint → 200, empty; the token is dead.
        let revoked = try client.post(fixture.issuer + "oauth/revoke", json: ["token": accessToken, "client_id": clientID])
        #expect(revoked.status == 200)
        #expect(revoked.body.isEmpty)
        #expect(revoked.headers["cache-control"] == "no-store")
        #expect(try Self.userinfo(fixture, accessToken) == 401)
        // Revoking again is still fine.
        #expect(try client.post(fixture.issuer + "oauth/revoke", form: [("token", accessToken), ("client_id", clientID)]).status == 200)
    }

    @Test func anM2MAppGetsAnAPITokenThatCanBeIntrospectedAndRevoked() throws {
        let fixture = try SignInFixture()
        let created = try fixture.daemon.admin(["apps", "create", "--name", "Backend", "--type", "m2m", "--json"])
        #expect(created.status == 0, "\(created.stderr)")
        let app = try #require(try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])
        let clientID = try #require(app["client_id"]), secret = try #require(app["client_secret"])
        let api = "https://api.example.com/"
        let apiCreated = try fixture.daemon.admin(["apis", "create", "--identifier", api, "--name", "Orders",
                                                   "--scopes", "read:orders,write:orders", "--token-lifetime", "900", "--json"])
        #expect(apiCreated.status == 0, "\(apiCreated.stderr)")
        let granted = try fixture.daemon.admin(["apps", "grant", clientID, "--api", api, "--scopes", "read:orders", "--json"])
        #expect(granted.status == 0, "\(granted.stderr)")

        // A scope outside the client grant refuses the request, as Auth0 does.
        let outside = try Curl.get(fixture.issuer + "oauth/token", ["-u", "\(clientID):\(secret)", "-d", "grant_type=client_credentials",
                                                                    "--data-urlencode", "audience=\(api)", "-d", "scope=read:orders write:orders"])
        #expect(outside.status == 403)
        #expect(outside.text == #"{"error":"access_denied","error_description":"Client has not been granted scopes: write:orders"}"#)
        let token = try Curl.get(fixture.issuer + "oauth/token", ["-u", "\(clientID):\(secret)", "-d", "grant_type=client_credentials",
                                                                  "--data-urlencode", "audience=\(api)", "-d", "scope=read:orders"])
        #expect(token.status == 200, "\(token.text)")
        let body = try token.json()
        #expect(body["scope"] as? String == "read:orders")
        #expect(body["expires_in"] as? Int == 900)
        #expect(body["id_token"] == nil && body["refresh_token"] == nil)
        let accessToken = try #require(body["access_token"] as? String)
        let claims = try SignInFixture.claims(of: accessToken)
        #expect(claims["aud"] as? String == api)
        #expect(claims["sub"] as? String == clientID)
        #expect(claims["client_id"] as? String == clientID)
        // Not a user token: userinfo refuses it.
        #expect(try Self.userinfo(fixture, accessToken) == 401)

        // Not granted → access_denied (403).
        let denied = try Curl.get(fixture.issuer + "oauth/token", ["-u", "\(clientID):\(secret)", "-d", "grant_type=client_credentials",
                                                                   "--data-urlencode", "audience=https://other.example.com/"])
        #expect(denied.status == 403)
        #expect(try denied.json()["error"] as? String == "access_denied")

        // Introspection with curl -u.
        let active = try Curl.get(fixture.issuer + "oauth/introspect", ["-u", "\(clientID):\(secret)", "--data-urlencode", "token=\(accessToken)"])
        #expect(active.status == 200, "\(active.text)")
        let activeBody = try active.json()
        #expect(activeBody["active"] as? Bool == true)
        #expect(activeBody["scope"] as? String == "read:orders")
        #expect(activeBody["token_type"] as? String == "access_token")
        // A public client may not introspect.
        let native = try fixture.createApp()
        let publicCall = try Curl.get(fixture.issuer + "oauth/introspect", ["-d", "client_id=\(native.clientID)", "--data-urlencode", "token=\(accessToken)"])
        #expect(publicCall.status == 401)

        let revoked = try Curl.get(fixture.issuer + "oauth/revoke", ["-u", "\(clientID):\(secret)", "--data-urlencode", "token=\(accessToken)"])
        #expect(revoked.status == 200)
        let inactive = try Curl.get(fixture.issuer + "oauth/introspect", ["-u", "\(clientID):\(secret)", "--data-urlencode", "token=\(accessToken)"])
        #expect(inactive.text == #"{"active":false}"#)

        // Discovery advertises what is now served.
        let metadata = try Curl.get(fixture.issuer + ".well-known/openid-configuration").json()
        #expect(metadata["revocation_endpoint"] as? String == fixture.issuer + "oauth/revoke")
        #expect(metadata["introspection_endpoint"] as? String == fixture.issuer + "oauth/introspect")
        #expect(metadata["end_session_endpoint"] as? String == fixture.issuer + "oidc/logout")
        #expect((metadata["grant_types_supported"] as? [String])?.contains("client_credentials") == true)
    }

    /// /authorize with an unknown audience is invalid_request; a registered API lands in the access token's aud.
    @Test func authorizeAudienceMustNameARegisteredAPI() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        #expect(try fixture.daemon.admin(["apis", "create", "--identifier", "https://api.example.com/", "--name", "Orders"]).status == 0)
        let browser = Browser(directory: fixture.daemon.directory)
        let refused = try browser.get(fixture.authorizeURL(clientID: app.clientID, extra: [("audience", "https://unknown.example.com/")]))
        #expect(refused.status == 302)
        #expect(queryParameters(of: try #require(refused.headers["location"]))["error"] == "invalid_request")

        let callback = try fixture.signIn(browser, clientID: app.clientID, extra: [("audience", "https://api.example.com/")])
        let code = try #require(queryParameters(of: callback)["code"])
        let body = try fixture.redeem(code: code, clientID: app.clientID).json()
        let claims = try SignInFixture.claims(of: try #require(body["access_token"] as? String))
        #expect(claims["aud"] as? [String] == ["https://api.example.com/", fixture.issuer + "userinfo"])
    }
}
