import Foundation
import JOSE
import Testing
@testable import OIDC

/// The token request's own parsing: repeated parameters (RFC 6749 §3.2: "Request and response
/// parameters MUST NOT be included more than once") and HTTP Basic credentials (RFC 7617 §2,
/// RFC 6749 §2.3.1).
@Suite struct TokenRequestParsingTests {
    @Test(arguments: [
        [("grant_type", "refresh_token"), ("grant_type", "refresh_token")],
        [("scope", "a"), ("client_id", "x"), ("scope", "b")],
        // The same name in NFC and NFD is the same name.
        [("caf\u{E9}", "1"), ("cafe\u{301}", "2")],
    ])
    func aRepeatedParameterIsRefused(pairs: [(String, String)]) {
        #expect(throws: OAuthError.self) { try TokenRequest(pairs: pairs) }
    }

    @Test func distinctParametersAreKept() throws {
        let request = try TokenRequest(pairs: [("grant_type", "client_credentials"), ("audience", "https://api"), ("Scope", "x")])
        #expect(request["grant_type"] == "client_credentials" && request["audience"] == "https://api" && request["Scope"] == "x")
        #expect(request["scope"] == nil)
    }

    static func basic(_ text: String) -> String { "Basic " + Data(text.utf8).base64EncodedString() }

    @Test(arguments: [
        (basic("app:secret"), "app", "secret"),
        (basic("app:se:cret"), "app", "se:cret"),
        (basic("app:"), "app", ""),
        (basic("my%20app:p%2Bw+d"), "my app", "p+w d"),
        ("bAsIc " + Data("app:secret".utf8).base64EncodedString(), "app", "secret"),
        (basic("caf\u{E9}:\u{301}x"), "caf\u{E9}", "\u{301}x"),
    ])
    func basicCredentialsSplitAtTheFirstColon(header: String, id: String, secret: String) throws {
        let credentials = try #require(try ClientAuthenticator.basicCredentials(header))
        #expect(credentials.id == id && credentials.secret == secret)
    }

    @Test(arguments: [basic("no colon"), basic(":secret"), "Bearer abc", "Basic !!!", basic("a%zz:b"), "Basic"])
    func malformedBasicCredentialsAreAnInvalidClient(header: String) {
        #expect(throws: OAuthError.self) { try ClientAuthenticator.basicCredentials(header) }
    }
}

/// The token response body: its members in byte order, absent ones left out, the same bytes as
/// the canonical JSON of the same members (RFC 6749 §5.1).
@Suite struct TokenResponseBodyTests {
    @Test(arguments: [false, true], [false, true])
    func theBodyIsCanonicalJSON(withIDToken: Bool, withRefreshToken: Bool) throws {
        var response = TokenResponse(accessToken: "at_abc", idToken: withIDToken ? "h.p.s" : nil, tokenType: "Bearer",
                                     expiresIn: 86_400, scope: "openid profile", refreshToken: withRefreshToken ? "rt2.g.1.m" : nil)
        for issued in [nil, "urn:auth0:params:oauth:token-type:session_transfer_token"] as [String?] {
            response.issuedTokenType = issued
            var expected: [String: JSONValue] = ["access_token": .string("at_abc"), "token_type": .string("Bearer"),
                                                 "expires_in": .integer(86_400), "scope": .string("openid profile")]
            expected["id_token"] = response.idToken.map(JSONValue.string)
            expected["refresh_token"] = response.refreshToken.map(JSONValue.string)
            expected["issued_token_type"] = issued.map(JSONValue.string)
            #expect(response.jsonBody() == (try JSONValue.object(expected).jsonBytes()))
        }
    }
}
