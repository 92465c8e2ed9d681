import Foundation
import HTTP
import Storage
import Testing
import TestSupport

/// Catalogue rows of /authorize and the login pages that the core tests decide but no test drove
/// through the real routes (docs/negative-tests-coverage.md).
@Suite("Negative catalogue: authorize")
struct NegativeCatalogueAuthorizeTests {
    /// A redirected error, as rows A10, A11, A14, B01, B02, F01 and F05 produce it.
    struct ErrorRedirectRow: Sendable, CustomTestStringConvertible {
        let row: String
        let with: [(String, String)]
        var dropping: Set<String> = []
        let error: String
        var testDescription: String { row }
    }

    static let errorRedirects: [ErrorRedirectRow] = [
        .init(row: "A10 response_type missing", with: [], dropping: ["response_type"], error: "invalid_request"),
        .init(row: "A11 token", with: [("response_type", "token")], error: "unsupported_response_type"),
        .init(row: "A11 code id_token", with: [("response_type", "code id_token")], error: "unsupported_response_type"),
        .init(row: "A12 a parameter twice (nonce)", with: [("nonce", "n-2"), ("nonce", "n-3")], error: "invalid_request"),
        .init(row: "A14 request", with: [("request", "eyJhbGciOiJub25lIn0.e30.")], error: "request_not_supported"),
        .init(row: "A14 request_uri", with: [("request_uri", "https://evil.example/r")], error: "request_uri_not_supported"),
        .init(row: "B01 no challenge", with: [], dropping: ["code_challenge", "code_challenge_method"], error: "invalid_request"),
        .init(row: "B02 plain", with: [("code_challenge_method", "plain")], error: "invalid_request"),
        .init(row: "F01 prompt=none", with: [("prompt", "none")], error: "login_required"),
        .init(row: "F05 max_age 2^63", with: [("max_age", "9223372036854775808")], error: "invalid_request"),
        .init(row: "response_mode fragment", with: [("response_mode", "fragment")], error: "invalid_request"),
    ]

    /// A15/A16 over HTTP: only error, error_description, error_uri, state and iss; no CR, LF, TAB or
    /// space on the wire; state exact; iss byte-equal to the issuer; never a code (RFC 9207, RFC 6749 §4.1.2.1).
    @Test(arguments: errorRedirects)
    func errorRedirectsCarryOnlyTheAllowedParameters(_ row: ErrorRedirectRow) throws {
        let rig = try CatalogueRig()
        let state = "a\tb\r\nSet-Cookie: x=1 \"<s>\""
        let response = rig.harness.get(rig.authorizePath(row.with + [("state", state)], dropping: row.dropping))
        #expect(response.status == 302, "\(response.text.prefix(300))")
        let location = try #require(response.location)
        #expect(location.hasPrefix(CatalogueRig.callback + "?"))
        #expect(!location.utf8.contains { $0 <= 0x20 || $0 == 0x7F }, "raw control or space in \(location)")
        let items = CatalogueRig.items(of: location)
        #expect(Set(items.map(\.0)).isSubset(of: ["error", "error_description", "error_uri", "state", "iss"]), "\(items)")
        #expect(items.first { $0.0 == "error" }?.1 == row.error)
        #expect(items.first { $0.0 == "state" }.map { Array($0.1.utf8) } == Array(state.utf8))
        #expect(items.first { $0.0 == "iss" }.map { Array($0.1.utf8) } == Array(rig.harness.issuer.utf8))
        #expect(response.headers.values("Set-Cookie").allSatisfy { !$0.contains("x=1") })
    }

    /// A17/A18: a 2 KB state with CR LF, a header and markup, and a 384-character nonce, survive the
    /// whole sign-in exactly: percent-encoded in Location (no header split), escaped in pages, the
    /// nonce byte-equal in the ID token.
    @Test func aLongHostileStateAndALongNonceAreEchoedExactly() throws {
        let rig = try CatalogueRig()
        let state = String(repeating: "s", count: 2000) + "\r\nSet-Cookie: x=1\"><script>alert(1)</script>%0d%0a"
        let nonce = String(repeating: "n0-._~", count: 64)
        #expect(nonce.count == 384)
        let path = rig.authorizePath([("state", state), ("nonce", nonce)])
        let page = rig.harness.get(path)
        #expect(page.status == 200)
        #expect(!page.text.contains("<script>alert(1)"))
        let callback = try #require(rig.signIn(path))
        #expect(!callback.contains("\r") && !callback.contains("\n") && !callback.contains("<"))
        #expect(queryParameters(of: callback)["state"] == state)
        let code = try #require(CatalogueRig.code(in: callback))
        let body = try #require(CatalogueRig.json(rig.redeem(code).text))
        let claims = try SignInFixture.claims(of: try #require(body["id_token"] as? String))
        #expect(claims["nonce"] as? String == nonce)
    }

    /// A13: parameters Gatehouse does not act on change nothing; the whole flow completes.
    @Test func ignorableParametersLetTheFlowSucceed() throws {
        let rig = try CatalogueRig()
        let path = rig.authorizePath([("extra", "foobar"), ("display", "popup"), ("ui_locales", "fr-CA fr"), ("claims_locales", "fr"),
                                      ("login_hint", CatalogueRig.email), ("acr_values", "urn:mace:incommon:iap:silver"),
                                      ("claims", #"{"id_token":{"email":{"essential":true}}}"#)])
        let tokens = rig.tokens(path)
        #expect(tokens["access_token"] is String && tokens["id_token"] is String && tokens["refresh_token"] is String)
    }

    /// A20: a POST form to /authorize decides as the GET does — the login page, then a code with the session.
    @Test func aPostedAuthorizationRequestBehavesLikeTheGet() throws {
        let rig = try CatalogueRig()
        let posted = rig.harness.post("/authorize", form: rig.authorizePairs())
        #expect(posted.status == 200)
        #expect(HTMLForm.value(of: "csrf_token", in: posted.text) != nil)
        #expect(rig.submit(posted).status == 303)
        let sso = rig.harness.post("/authorize", form: rig.authorizePairs([("state", "st-post")]))
        #expect(sso.status == 302)
        let location = try #require(sso.location)
        #expect(location.hasPrefix(CatalogueRig.callback + "?code="))
        #expect(queryParameters(of: location)["state"] == "st-post")
        let refused = rig.harness.post("/authorize", form: rig.authorizePairs([("redirect_uri", CatalogueRig.callback + "x")]))
        #expect(refused.status == 400 && refused.location == nil)
    }

    /// A05: client_id is compared as bytes. The client cache is a Swift dictionary, whose keys match
    /// canonically equivalent strings (U+212A KELVIN SIGN is "K", NFD "e\u{301}" is "é"), so a warm
    /// cache hands back the real client; /authorize and the token endpoint must still refuse.
    @Test(arguments: [("app-K1", "app-\u{212A}1"), ("caf\u{E9}-app", "cafe\u{301}-app")])
    func aCanonicallyEquivalentClientIDIsAnotherClient(registered: String, lookalike: String) throws {
        let rig = try CatalogueRig(nativeID: registered)
        #expect(lookalike == registered && Array(lookalike.utf8) != Array(registered.utf8))
        #expect(rig.harness.get(rig.authorizePath()).status == 200)   // the real id, now cached
        let page = rig.harness.get(rig.authorizePath([("client_id", lookalike)]))
        #expect(page.status == 400 && page.location == nil)
        let token = rig.harness.post("/oauth/token", form: [("grant_type", "refresh_token"), ("client_id", lookalike), ("refresh_token", "x")])
        #expect(token.status == 401 && CatalogueRig.json(token.text)?["error"] as? String == "invalid_client")
    }

    /// I19/I20 in query strings and form bodies: bad escapes and invalid UTF-8 after decoding are
    /// refused (never U+FFFD), and values are decoded exactly once.
    @Test(arguments: ["client_id=%zz", "client_id=app-1&state=%C3%28", "client_id=app-1&state=%C0%AF", "client_id=app-1&state=%ED%A0%80",
                      "client_id=app-1&state=%4", "client_id=app-1&state=%"])
    func aBadlyEncodedQueryIsAPageNeverARedirect(query: String) throws {
        let rig = try CatalogueRig()
        let response = rig.harness.get("/authorize?" + query + "&" + CatalogueRig.query(rig.authorizePairs(dropping: ["client_id", "state"])))
        #expect(response.status == 400)
        #expect(response.location == nil)
        #expect(!response.text.contains("\u{FFFD}"))
    }

    @Test(arguments: ["grant_type=authorization_code&code=%zz", "grant_type=refresh_token&refresh_token=%C3%28",
                      "grant_type=authorization_code&code=%ED%A0%80", "grant_type=%"])
    func aBadlyEncodedTokenBodyIsInvalidRequest(body: String) throws {
        let rig = try CatalogueRig()
        let response = rig.harness.send("POST", "/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                        body: Array(("client_id=app-1&" + body).utf8), from: "198.51.100.7")
        #expect(response.status == 400)
        #expect(CatalogueRig.json(response.text)?["error"] as? String == "invalid_request")
    }

    /// `%252F` arrives as `%2F` (decoded once); a `%00` in a value is data, echoed encoded, never raw
    /// (the parser refuses it in the path, where it could reach a file name).
    @Test(arguments: [("a%252Fb", "a%2Fb"), ("a%00b", "a\u{0}b")])
    func valuesAreDecodedOnce(sent: String, decoded: String) throws {
        let rig = try CatalogueRig()
        let response = rig.harness.get(rig.authorizePath(dropping: ["response_type", "state"]) + "&state=" + sent)
        #expect(response.status == 302)
        let location = try #require(response.location)
        #expect(!location.utf8.contains(0))
        #expect(queryParameters(of: location)["state"] == decoded)
    }

    /// K12: SQL in a username, a client_id and a state is data.
    @Test func sqlInInputsIsData() throws {
        let rig = try CatalogueRig()
        let injection = "' OR 1=1--"
        let page = rig.harness.get(rig.authorizePath())
        for email in [injection, CatalogueRig.email + "' --", "x' UNION SELECT password_hash FROM users--"] {
            let response = rig.submit(page, email: email, from: "203.0.113.\(email.count)")
            #expect(response.status == 401 && response.text.contains("Wrong email or password."))
        }
        let client = rig.harness.get(rig.authorizePath([("client_id", injection)]))
        #expect(client.status == 400 && client.location == nil)
        let state = rig.harness.get(rig.authorizePath([("state", injection), ("prompt", "none")]))
        #expect(queryParameters(of: try #require(state.location))["state"] == injection)
        let token = rig.harness.post("/oauth/token", form: [("grant_type", "refresh_token"), ("client_id", "app-1"), ("refresh_token", injection)])
        #expect(token.status == 400 && CatalogueRig.json(token.text)?["error"] as? String == "invalid_grant")
        let basic = rig.harness.post("/oauth/token", form: [("grant_type", "authorization_code"), ("code", "x")],
                                     headers: [("Authorization", "Basic " + Data("web-1' OR '1'='1:x".utf8).base64EncodedString())])
        #expect(basic.status == 401)
        #expect(try rig.count("users") == 1 && rig.count("clients") == 2 && rig.count("sessions") == 0)
    }

    /// E10: neither Host nor X-Forwarded-* reaches what /authorize, the login form, the continuation
    /// or an error redirect emit; every URL comes from the configured issuer.
    @Test func forgedHostAndForwardedHeadersNeverReachEmittedURLs() throws {
        let rig = try CatalogueRig()
        let forged = [("Host", "evil.example"), ("X-Forwarded-Host", "evil.example"), ("X-Forwarded-Proto", "http"),
                      ("Forwarded", "host=evil.example;proto=http")]
        var cookies: [String] = []
        func send(_ method: String, _ target: String, body: String = "") -> HTTPResponse {
            var headers = HTTPHeaders(forged)
            if !cookies.isEmpty { headers.set("Cookie", cookies.joined(separator: "; ")) }
            if method == "POST" { headers.set("Content-Type", "application/x-www-form-urlencoded") }
            let response = rig.harness.routes.respond(to: HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8),
                                                                      peer: .ip("198.51.100.7", port: 1), requestID: "e10",
                                                                      clientAddress: "198.51.100.7"))
            cookies += response.headers.values("Set-Cookie").compactMap { $0.split(separator: ";").first.map(String.init) }
            return response
        }
        func emitted(_ response: HTTPResponse) -> String {
            response.headers.map { "\($0.0): \($0.1)" }.joined(separator: "\n") + String(decoding: response.body, as: UTF8.self)
        }
        let page = send("GET", rig.authorizePath())
        #expect(page.status == 200)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains(#"action="https://id.example.com/login""#))
        let form = CatalogueRig.query([("tx", HTMLForm.value(of: "tx", in: html) ?? ""), ("csrf_token", HTMLForm.value(of: "csrf_token", in: html) ?? ""),
                                       ("email", CatalogueRig.email), ("password", CatalogueRig.password), ("action", "login")])
        let posted = send("POST", "/login", body: form)
        #expect(posted.status == 303)
        let resume = try #require(posted.headers["Location"])
        #expect(resume.hasPrefix("https://id.example.com/authorize/resume?"))
        let back = send("GET", String(resume.dropFirst("https://id.example.com".count)))
        #expect(back.status == 302)
        #expect(queryParameters(of: try #require(back.headers["Location"]))["iss"] == "https://id.example.com/")
        let refused = send("GET", rig.authorizePath([("prompt", "none"), ("response_type", "token")]))
        #expect(refused.status == 302)
        let discovery = send("GET", "/.well-known/openid-configuration")
        for response in [page, posted, back, refused, discovery] {
            #expect(!emitted(response).contains("evil.example"))
            #expect(!emitted(response).contains("http://"))
        }
    }
}
