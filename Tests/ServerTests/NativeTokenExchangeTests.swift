import Foundation
import Testing
import TestSupport

/// The native token exchange (RFC 8693) for an `oidc` connection whose provider is a second,
/// real Gatehouse: the "app" signs in at the provider itself, then trades the provider's ID token
/// for ours. Apple's and Google's specifics (hashed nonce, codes) are tested against their stand-in.
@Suite("Native token exchange against a second Gatehouse", .serialized)
struct NativeTokenExchangeTests {
    let relying: SignInFixture
    let provider: SignInFixture
    /// The app at the provider whose ID tokens the connection accepts natively.
    let nativeAtProvider: String
    let appID: String
    let providerUserID: String
    static let idTokenType = "urn:ietf:params:oauth:token-type:id_token"
    static let grant = "urn:ietf:params:oauth:grant-type:token-exchange"

    init() throws {
        relying = try SignInFixture()
        provider = try SignInFixture()
        providerUserID = try provider.createUser("alice@corp.example", name: "Alice Corp")
        nativeAtProvider = try provider.createApp().clientID
        let web = try provider.createApp("regular", callbacks: [relying.issuer + "login/callback"])
        let created = try relying.daemon.admin(["connections", "create", "--name", "corp", "--strategy", "oidc",
                                                "--client-id", web.clientID, "--client-secret-stdin",
                                                "--discovery-url", provider.issuer + ".well-known/openid-configuration",
                                                "--native-audiences", nativeAtProvider],
                                               input: try #require(web.secret) + "\n")
        #expect(created.status == 0, "\(created.stderr)")
        appID = try relying.createApp().clientID
        #expect(try relying.daemon.admin(["apps", "update", appID, "--connections", "corp"]).status == 0)
    }

    /// An ID token the provider issued to `clientID` with `nonce` (none: no nonce at all).
    func providerIDToken(clientID: String, nonce: String?) throws -> String {
        let browser = Browser(directory: provider.daemon.directory)
        let page = try browser.get(provider.authorizeURL(clientID: clientID, extra: [("nonce", nonce ?? "")]))
        let posted = try provider.submitLogin(browser, page: page, email: "alice@corp.example")
        let resumed = try browser.get(try #require(posted.headers["location"]))
        let callback = try #require(resumed.headers["location"])
        let code = try #require(queryParameters(of: callback.replacingOccurrences(of: "com.example.app://", with: "https://"))["code"])
        let tokens = try provider.redeem(code: code, clientID: clientID).json()
        return try #require(tokens["id_token"] as? String)
    }

    func exchange(_ token: String, nonce: String?, clientID: String? = nil, extra: [String: String] = [:]) throws -> Curl.Response {
        var body: [String: Any] = ["grant_type": Self.grant, "client_id": clientID ?? appID, "subject_token": token,
                                   "subject_token_type": Self.idTokenType, "scope": "openid profile email offline_access"]
        if let nonce { body["nonce"] = nonce }
        for (key, value) in extra { body[key] = value }
        return try Browser(directory: relying.daemon.directory).post(relying.issuer + "oauth/token", json: body)
    }

    @Test func anIDTokenForANativeAudienceSignsTheUserIn() throws {
        let token = try providerIDToken(clientID: nativeAtProvider, nonce: "raw-nonce-1")
        let answer = try exchange(token, nonce: "raw-nonce-1")
        #expect(answer.status == 200, "\(answer.text)")
        let json = try answer.json()
        #expect(json["refresh_token"] is String && json["access_token"] is String)
        let claims = try SignInFixture.claims(of: try #require(json["id_token"] as? String))
        #expect(claims["sub"] as? String == "oidc|corp|" + providerUserID)
        #expect(claims["aud"] as? String == appID)
        // The same person again is the same user, not a second one.
        let again = try exchange(try providerIDToken(clientID: nativeAtProvider, nonce: "raw-nonce-2"), nonce: "raw-nonce-2")
        let second = try SignInFixture.claims(of: try #require(try again.json()["id_token"] as? String))
        #expect(second["sub"] as? String == claims["sub"] as? String)
    }

    struct Refusal: Sendable, CustomStringConvertible {
        let description: String
        let tokenNonce: String?
        let requestNonce: String?
        var tokenForWebClient = false
        var extra: [String: String] = [:]
        let status: Int
        let error: String
        let message: String
    }

    static let refusals: [Refusal] = [
        Refusal(description: "nonce mismatch", tokenNonce: "n-1", requestNonce: "n-2", status: 400, error: "invalid_grant",
                message: "the ID token was refused: nonce mismatch"),
        Refusal(description: "nonce missing in the request", tokenNonce: "n-1", requestNonce: nil, status: 400, error: "invalid_request",
                message: "nonce is required: send the raw nonce the app gave the provider"),
        Refusal(description: "nonce missing in the token", tokenNonce: nil, requestNonce: "n-1", status: 400, error: "invalid_grant",
                message: "the ID token was refused: nonce missing"),
        Refusal(description: "the connection's client id instead of a native audience", tokenNonce: "n-1", requestNonce: "n-1",
                tokenForWebClient: true, status: 400, error: "invalid_grant", message: "the ID token was refused: aud"),
        Refusal(description: "unknown subject_token_type", tokenNonce: "n-1", requestNonce: "n-1",
                extra: ["subject_token_type": "urn:ietf:params:oauth:token-type:jwt"], status: 400, error: "invalid_request",
                message: "unsupported subject_token_type"),
        Refusal(description: "a connection the app does not enable", tokenNonce: "n-1", requestNonce: "n-1",
                extra: ["connection": "other"], status: 400, error: "invalid_request",
                message: "the connection is not enabled for this application"),
    ]

    @Test(arguments: refusals)
    func refused(_ row: Refusal) throws {
        var extra = row.extra
        if row.tokenForWebClient {
            // A second connection whose own client id is the token's audience, with other native audiences.
            #expect(try relying.daemon.admin(["connections", "create", "--name", "corp2", "--strategy", "oidc", "--client-id", nativeAtProvider,
                                              "--discovery-url", provider.issuer + ".well-known/openid-configuration",
                                              "--native-audiences", "some-other-app"]).status == 0)
            #expect(try relying.daemon.admin(["apps", "update", appID, "--connections", "corp,corp2"]).status == 0)
            extra["connection"] = "corp2"
        }
        let audience = nativeAtProvider
        let token = try providerIDToken(clientID: audience, nonce: row.tokenNonce)
        let answer = try exchange(token, nonce: row.requestNonce, extra: extra)
        #expect(answer.status == row.status, "\(answer.text)")
        let json = try answer.json()
        #expect(json["error"] as? String == row.error)
        #expect((json["error_description"] as? String ?? "").hasPrefix(row.message), "\(json)")
        // Nothing was created.
        let listed = try relying.daemon.admin(["users", "list", "--json"])
        #expect(!listed.stdout.contains("oidc|corp"))
    }

    @Test func anAppWithoutTheConnectionCannotExchange() throws {
        let other = try relying.createApp().clientID
        let answer = try exchange(try providerIDToken(clientID: nativeAtProvider, nonce: "n-1"), nonce: "n-1", clientID: other)
        #expect(answer.status == 400)
        #expect(try answer.json()["error_description"] as? String == "no connection enabled for this application accepts this token")
    }
}
