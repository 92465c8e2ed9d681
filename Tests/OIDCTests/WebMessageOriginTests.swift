import Foundation
import Model
import Testing
@testable import OIDC

/// Who may receive a `web_message` answer: the redirect URI's origin, only when it is an Allowed Web Origin.
@Suite struct WebMessageOriginTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let id: String
        let redirectURI: String
        let allowed: [String]
        let expected: Result<String, WebMessageOrigin.Refusal>
        var testDescription: String { id }
    }

    static let rows: [Row] = [
        Row(id: "exact origin", redirectURI: "https://app.example.com", allowed: ["https://app.example.com"],
            expected: .success("https://app.example.com")),
        Row(id: "callback path, origin allowed", redirectURI: "https://app.example.com/callback?x=1",
            allowed: ["https://app.example.com"], expected: .success("https://app.example.com")),
        Row(id: "letter case and default port normalised", redirectURI: "HTTPS://App.Example.com:443/cb",
            allowed: ["https://app.example.COM"], expected: .success("https://app.example.com")),
        Row(id: "configured origin with a trailing slash", redirectURI: "https://app.example.com", allowed: ["https://app.example.com/"],
            expected: .success("https://app.example.com")),
        Row(id: "loopback with a port", redirectURI: "http://127.0.0.1:5173/", allowed: ["http://127.0.0.1:5173"],
            expected: .success("http://127.0.0.1:5173")),
        Row(id: "other port", redirectURI: "http://127.0.0.1:5174/", allowed: ["http://127.0.0.1:5173"],
            expected: .failure(.notAllowed(origin: "http://127.0.0.1:5174"))),
        Row(id: "other scheme", redirectURI: "http://app.example.com", allowed: ["https://app.example.com"],
            expected: .failure(.notAllowed(origin: "http://app.example.com"))),
        Row(id: "subdomain is another origin", redirectURI: "https://evil.app.example.com", allowed: ["https://app.example.com"],
            expected: .failure(.notAllowed(origin: "https://evil.app.example.com"))),
        Row(id: "suffix is another origin", redirectURI: "https://app.example.com.evil.net", allowed: ["https://app.example.com"],
            expected: .failure(.notAllowed(origin: "https://app.example.com.evil.net"))),
        Row(id: "wildcard never matches", redirectURI: "https://a.example.com", allowed: ["https://*.example.com"],
            expected: .failure(.notAllowed(origin: "https://a.example.com"))),
        Row(id: "no web origins: a callback alone is not enough (as Auth0)", redirectURI: "https://app.example.com", allowed: [],
            expected: .failure(.notAllowed(origin: "https://app.example.com"))),
        Row(id: "custom scheme has no origin", redirectURI: "com.example.app://callback", allowed: ["com.example.app://callback"],
            expected: .failure(.noOrigin)),
        Row(id: "userinfo is refused", redirectURI: "https://user@app.example.com/", allowed: ["https://app.example.com"],
            expected: .failure(.noOrigin)),
        Row(id: "no host", redirectURI: "https:///cb", allowed: ["https://app.example.com"], expected: .failure(.noOrigin)),
        Row(id: "a star is never a target", redirectURI: "*", allowed: ["*"], expected: .failure(.noOrigin)),
    ]

    @Test(arguments: rows)
    func decides(_ row: Row) {
        #expect(WebMessageOrigin.decide(redirectURI: row.redirectURI, allowedWebOrigins: row.allowed) == row.expected)
    }

    /// The Authorizer asks before anything is sent: a refused origin is an error page, even for a
    /// prompt=none request whose answer would otherwise be a `login_required` post.
    @Test(arguments: [
        ("https://spa.example.com", [("prompt", "none")], Expect.redirect(.loginRequired)),
        ("https://spa.example.com/callback", [], Expect.login(.noSession)),
        ("https://other.example.com/cb", [("prompt", "none")], Expect.page),
        ("https://other.example.com/cb", [], Expect.page),
    ])
    func authorizerChecksTheOriginFirst(redirectURI: String, extra: [(String, String)], expected: Expect) {
        let pairs = [("client_id", "spa-app"), ("response_type", "code"), ("redirect_uri", redirectURI), ("state", "st"),
                     ("scope", "openid"), ("response_mode", "web_message"), ("code_challenge", Fixture.challenge),
                     ("code_challenge_method", "S256")] + extra
        let decision = authorizer().decide(pairs, session: nil, user: nil)
        #expect(shape(decision) == expected, "\(decision)")
        if case .errorPage(let status, let code, let log) = decision {
            #expect(status == 400 && code == "web_origin_not_allowed")
            #expect(log.contains("https://other.example.com") && log.contains("spa-app"))
        }
        if case .errorRedirect(let target, _) = decision {
            #expect(target.responseMode == .webMessage && target.messageOrigin == "https://spa.example.com" && target.state == "st")
        }
    }

    /// Other response modes do not need a web origin; a repeated response_mode is a redirected error as before.
    @Test func onlyWebMessageNeedsAWebOrigin() {
        let base = [("client_id", "spa-app"), ("response_type", "code"), ("redirect_uri", "https://other.example.com/cb"),
                    ("scope", "openid"), ("code_challenge", Fixture.challenge), ("code_challenge_method", "S256")]
        #expect(shape(authorizer().decide(base, session: nil, user: nil)) == .login(.noSession))
        #expect(shape(authorizer().decide(base + [("response_mode", "form_post")], session: nil, user: nil)) == .login(.noSession))
        #expect(shape(authorizer().decide(base + [("response_mode", "web_message"), ("response_mode", "web_message")],
                                          session: nil, user: nil)) == .redirect(.invalidRequest))
    }

    /// The stored request rebuilds the same target (resume after the login form).
    @Test func theModeSurvivesTheLoginTransaction() throws {
        let request = AuthorizationRequest(clientID: "spa-app", redirectURI: "https://spa.example.com/callback", responseMode: .webMessage,
                                           state: "s", uiLocales: "ja")
        let rebuilt = try #require(AuthorizationRequest(parameters: request.parameters()))
        let target = rebuilt.target(issuer: Fixture.issuer)
        #expect(target.responseMode == .webMessage && target.messageOrigin == "https://spa.example.com" && target.uiLocales == "ja")
        #expect(AuthorizationRequest(clientID: "x", redirectURI: "https://a.example.com").target(issuer: Fixture.issuer).messageOrigin == nil)
    }
}
