import Foundation
import Testing
import TestSupport

/// Auth0's resource-owner grants (`password`, `password-realm`), opt-in per application,
/// exactly as Auth0.swift's `login(usernameOrEmail:password:realmOrConnection:)` sends them.
@Suite struct PasswordGrantTests {
    static let realmGrant = "http://auth0.com/oauth/grant-type/password-realm"
    static let wrong = #"{"error":"invalid_grant","error_description":"Wrong email or password."}"#

    private func post(_ fixture: SignInFixture, _ body: [String: Any]) throws -> Curl.Response {
        try Browser(directory: fixture.daemon.directory).post(fixture.issuer + "oauth/token", json: body)
    }

    private func realmLogin(_ clientID: String, password: String = SignInFixture.password, email: String = "alice@example.com",
                            realm: String = "Username-Password-Authentication") -> [String: Any] {
        ["grant_type": Self.realmGrant, "client_id": clientID, "username": email, "password": password, "realm": realm,
         "scope": "openid profile email offline_access"]
    }

    @Test func theRealmGrantSignsInWhenTheAppEnablesIt() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp(extra: ["--grants", "authorization_code,refresh_token,\(Self.realmGrant)"])
        let userID = try fixture.createUser()
        let response = try post(fixture, realmLogin(app.clientID))
        #expect(response.status == 200, "\(response.text)")
        let body = try response.json()
        #expect(body["refresh_token"] is String)
        let claims = try SignInFixture.claims(of: try #require(body["id_token"] as? String))
        #expect(claims["sub"] as? String == userID)
        #expect(claims["aud"] as? String == app.clientID)
        #expect(claims["nonce"] == nil)
    }

    @Test func wrongCredentialsGetAuth0sExactAnswer() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp(extra: ["--grants", "authorization_code,\(Self.realmGrant)"])
        try fixture.createUser()
        for body in [realmLogin(app.clientID, password: "not the password"), realmLogin(app.clientID, email: "nobody@example.com")] {
            let response = try post(fixture, body)
            #expect(response.status == 400)
            #expect(response.text == Self.wrong)
            #expect(response.headers["cache-control"] == "no-store")
        }
    }

    @Test func theGrantIsOffUnlessTheApplicationListsIt() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        let response = try post(fixture, realmLogin(app.clientID))
        #expect(response.status == 400)
        #expect(try response.json()["error"] as? String == "unauthorized_client")
    }

    @Test func anUnknownRealmIsAnInvalidRequest() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp(extra: ["--grants", "authorization_code,\(Self.realmGrant)"])
        try fixture.createUser()
        let response = try post(fixture, realmLogin(app.clientID, realm: "Other-Database"))
        #expect(response.status == 400)
        #expect(try response.json()["error"] as? String == "invalid_request")
    }

    @Test func thePlainPasswordGrantNeedsNoRealm() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp(extra: ["--grants", "authorization_code,password"])
        try fixture.createUser()
        let response = try post(fixture, ["grant_type": "password", "client_id": app.clientID, "username": "alice@example.com",
                                          "password": SignInFixture.password, "scope": "openid"])
        #expect(response.status == 200, "\(response.text)")
    }

    /// Throttled like the login page: quick failures lock the pair, and then even the right password
    /// gets Auth0's 429 `too_many_attempts` (Auth0.swift `isTooManyAttempts`), with when to retry.
    @Test func failuresAreThrottledLikeTheLoginPage() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp(extra: ["--grants", "authorization_code,\(Self.realmGrant)"])
        try fixture.createUser()
        var statuses: [Int] = []
        for attempt in 0..<10 {
            statuses.append(try post(fixture, realmLogin(app.clientID, password: "wrong \(attempt)")).status)
        }
        #expect(statuses.first == 400 && statuses.last == 429 && statuses.allSatisfy { $0 == 400 || $0 == 429 })
        let right = try post(fixture, realmLogin(app.clientID))
        #expect(right.status == 429)
        #expect(right.text.hasPrefix(#"{"error":"too_many_attempts","error_description":"Your account has been blocked after multiple consecutive login attempts. Try again in"#))
    }
}
