import Foundation
import Model
import Testing
import TestSupport
@testable import OIDC

/// The expected shape of an /authorize decision.
enum Expect: Equatable, Sendable {
    case page
    case redirect(OAuthError.Code)
    case login(LoginReason)
    case code
}

struct AuthorizeCase: Sendable, CustomTestStringConvertible {
    let id: String
    let pairs: [(String, String)]
    let loggedIn: Bool
    let expect: Expect
    init(_ id: String, _ pairs: [(String, String)], loggedIn: Bool = false, _ expect: Expect) {
        self.id = id
        self.pairs = pairs
        self.loggedIn = loggedIn
        self.expect = expect
    }
    var testDescription: String { id }
}

func authorizer(clock: any Clock = FixedClock(Fixture.epoch.addingTimeInterval(10))) -> Authorizer {
    Authorizer(issuer: Fixture.issuer, clients: Fixture.clients(), clock: clock, hintKeys: TestSigner.keys,
               apis: MemoryAPIStore([API(apiID: "api-1", identifier: "https://api.example.com", name: "API", createdAt: Fixture.epoch)]))
}

func shape(_ decision: AuthorizeDecision) -> Expect {
    switch decision {
    case .errorPage: .page
    case .errorRedirect(_, let error): .redirect(error.code)
    case .login(_, let reason): .login(reason)
    case .issueCode: .code
    }
}

func n(_ extra: [(String, String)] = [], dropping: Set<String> = []) -> [(String, String)] {
    Fixture.nativeAuthorize(extra, dropping: dropping)
}
let webBase: [(String, String)] = [("client_id", "web-app"), ("response_type", "code"), ("redirect_uri", Fixture.webCallback),
                                   ("state", "s"), ("scope", "openid")]

let authorizeCases: [AuthorizeCase] = [
    .init("happy path, no session", n(), .login(.noSession)),
    .init("happy path, SSO", n(), loggedIn: true, .code),
    // A01–A05, A12: error pages, never a redirect.
    .init("A01 extra characters", n(dropping: ["redirect_uri"]) + [("redirect_uri", Fixture.nativeCallback + "x")], .page),
    .init("A01 unknown client", n(dropping: ["client_id"]) + [("client_id", "nobody")], .page),
    .init("A01 missing client", n(dropping: ["client_id"]), .page),
    .init("A01 empty client", n(dropping: ["client_id"]) + [("client_id", "")], .page),
    .init("A02 missing redirect_uri", n(dropping: ["redirect_uri"]), .page),
    .init("A02 missing redirect_uri, single callback (never defaulted)", [("client_id", "es-app"), ("response_type", "code"), ("scope", "openid")], .page),
    .init("A03 query added", n(dropping: ["redirect_uri"]) + [("redirect_uri", Fixture.nativeCallback + "?foo=bar")], .page),
    .init("A04 trailing slash", n(dropping: ["redirect_uri"]) + [("redirect_uri", Fixture.nativeCallback + "/")], .page),
    .init("A04 fragment", n(dropping: ["redirect_uri"]) + [("redirect_uri", Fixture.nativeCallback + "#x")], .page),
    .init("A05 NFD client_id", n(dropping: ["client_id"]) + [("client_id", "native-app\u{301}")], .page),
    .init("A06 loopback any port", n(dropping: ["redirect_uri"]) + [("redirect_uri", "http://127.0.0.1:51004/cb")], .login(.noSession)),
    .init("A07 loopback localhost", n(dropping: ["redirect_uri"]) + [("redirect_uri", "http://localhost:51004/cb")], .page),
    .init("A12 duplicate client_id", n() + [("client_id", "native-app")], .page),
    .init("A12 duplicate redirect_uri", n() + [("redirect_uri", Fixture.nativeCallback)], .page),
    // Redirected errors.
    .init("A12 duplicate state", n() + [("state", "other")], .redirect(.invalidRequest)),
    .init("A12 duplicate scope", n() + [("scope", "openid")], .redirect(.invalidRequest)),
    .init("no state is fine", n(dropping: ["state"]), .login(.noSession)),
    .init("A10 response_type missing", n(dropping: ["response_type"]), .redirect(.invalidRequest)),
    .init("A11 token", n(dropping: ["response_type"]) + [("response_type", "token")], .redirect(.unsupportedResponseType)),
    .init("A11 id_token", n(dropping: ["response_type"]) + [("response_type", "id_token")], .redirect(.unsupportedResponseType)),
    .init("A11 code id_token", n(dropping: ["response_type"]) + [("response_type", "code id_token")], .redirect(.unsupportedResponseType)),
    .init("A13 unknown parameters", n() + [("display", "page"), ("ui_locales", "fr"), ("claims_locales", "fr"), ("acr_values", "x"),
                                          ("claims", "{\"id_token\":{}}"), ("foo", "bar"), ("foo", "baz"), ("login_hint", "a@b.c")], .login(.noSession)),
    .init("A14 request", n() + [("request", "eyJ.x.y")], .redirect(.requestNotSupported)),
    .init("A14 request_uri", n() + [("request_uri", "https://x")], .redirect(.requestURINotSupported)),
    .init("A17 long state", n(dropping: ["state"]) + [("state", String(repeating: "s", count: 2048))], .login(.noSession)),
    .init("A18 long nonce", n(dropping: ["nonce"]) + [("nonce", String(repeating: "n", count: 384))], .login(.noSession)),
    .init("A18 no nonce", n(dropping: ["nonce"]), .login(.noSession)),
    .init("A19 no openid", n(dropping: ["scope"]) + [("scope", "profile bogus")], .login(.noSession)),
    .init("response_mode form_post", n() + [("response_mode", "form_post")], loggedIn: true, .code),
    .init("response_mode fragment", n() + [("response_mode", "fragment")], .redirect(.invalidRequest)),
    // PKCE at /authorize (B01–B03).
    .init("B01 public without challenge", n(dropping: ["code_challenge", "code_challenge_method"]), .redirect(.invalidRequest)),
    .init("B02 plain", n(dropping: ["code_challenge_method"]) + [("code_challenge_method", "plain")], .redirect(.invalidRequest)),
    .init("B02 method omitted", n(dropping: ["code_challenge_method"]), .redirect(.invalidRequest)),
    .init("B03 short challenge", n(dropping: ["code_challenge"]) + [("code_challenge", String(repeating: "a", count: 42))], .redirect(.invalidRequest)),
    .init("confidential without PKCE", webBase, loggedIn: true, .code),
    .init("confidential with plain", webBase + [("code_challenge", Fixture.challenge), ("code_challenge_method", "plain")], .redirect(.invalidRequest)),
    .init("m2m may not use the code flow", [("client_id", "m2m-app"), ("response_type", "code"), ("redirect_uri", Fixture.webCallback)], .redirect(.unauthorizedClient)),
    // Prompt and max_age (F01–F05).
    .init("F01 prompt=none, no session", n() + [("prompt", "none")], .redirect(.loginRequired)),
    .init("F02 prompt=none, session", n() + [("prompt", "none")], loggedIn: true, .code),
    .init("F03 prompt=login, session", n() + [("prompt", "login")], loggedIn: true, .login(.promptLogin)),
    .init("prompt consent accepted", n() + [("prompt", "consent")], loggedIn: true, .code),
    .init("F05 prompt none login", n() + [("prompt", "none login")], loggedIn: true, .redirect(.invalidRequest)),
    .init("F05 prompt unknown", n() + [("prompt", "bogus")], .redirect(.invalidRequest)),
    .init("F05 max_age -1", n() + [("max_age", "-1")], .redirect(.invalidRequest)),
    .init("F05 max_age abc", n() + [("max_age", "abc")], .redirect(.invalidRequest)),
    .init("F05 max_age 2^63", n() + [("max_age", "9223372036854775808")], .redirect(.invalidRequest)),
    .init("F05 max_age +5", n() + [("max_age", "+5")], .redirect(.invalidRequest)),
    .init("F05 max_age empty", n() + [("max_age", "")], .redirect(.invalidRequest)),
    .init("F04 max_age 10000", n() + [("max_age", "10000")], loggedIn: true, .code),
    .init("F04 max_age 1 after 10 s", n() + [("max_age", "1")], loggedIn: true, .login(.maxAgeExceeded)),
    .init("F04 max_age 1 after 10 s with prompt=none", n() + [("max_age", "1"), ("prompt", "none")], loggedIn: true, .redirect(.loginRequired)),
    // F06.
    .init("F06 hint for another user", n() + [("prompt", "none"), ("id_token_hint", Fixture.idToken(sub: "user-bob"))], loggedIn: true, .redirect(.loginRequired)),
    .init("F06 hint for the session user", n() + [("prompt", "none"), ("id_token_hint", Fixture.idToken(sub: "user-alice"))], loggedIn: true, .code),
    .init("F06 hint for another user without prompt", n() + [("id_token_hint", Fixture.idToken(sub: "user-bob"))], loggedIn: true, .login(.differentUser)),
    .init("E06 hint signed by a foreign key", n() + [("prompt", "none"), ("id_token_hint", Fixture.idToken(sub: "user-alice", key: TestSigner.foreign))], loggedIn: true, .redirect(.invalidRequest)),
    .init("E06 hint with unknown kid", n() + [("prompt", "none"), ("id_token_hint", Fixture.idToken(sub: "user-alice", kid: "nope"))], loggedIn: true, .redirect(.invalidRequest)),
    .init("hint garbage", n() + [("id_token_hint", "garbage")], loggedIn: true, .redirect(.invalidRequest)),
    .init("hint for another client", n() + [("id_token_hint", Fixture.idToken(sub: "user-alice", aud: "web-app"))], loggedIn: true, .redirect(.invalidRequest)),
]

@Suite("Authorizer")
struct AuthorizerTests {
    @Test(arguments: authorizeCases)
    func decision(_ row: AuthorizeCase) {
        let session = row.loggedIn ? Fixture.session() : nil
        let decision = authorizer().decide(row.pairs, session: session, user: row.loggedIn ? Fixture.alice : nil)
        #expect(shape(decision) == row.expect, "\(decision)")
        if case .errorRedirect(let target, _) = decision {
            #expect(target.issuer == Fixture.issuer)
            #expect(target.redirectURI == Fixture.nativeCallback || target.redirectURI == Fixture.webCallback)
        }
    }

    @Test func redirectEchoesStateAndIss() {
        let decision = authorizer().decide(n(dropping: ["response_type"]), session: nil, user: nil)
        guard case .errorRedirect(let target, let error) = decision else { Issue.record("\(decision)"); return }
        #expect(target.state == "state-123")
        let url = AuthorizationResponse.redirectURL(for: target, parameters: target.errorParameters(error))
        #expect(url == Fixture.nativeCallback + "?error=invalid_request&error_description=response_type%20is%20required&state=state-123&iss=https%3A%2F%2Fid.example.com%2F")
    }

    @Test func duplicateStateIsNotEchoed() {
        let decision = authorizer().decide(n() + [("state", "x")], session: nil, user: nil)
        guard case .errorRedirect(let target, _) = decision else { Issue.record("\(decision)"); return }
        #expect(target.state == nil)
    }

    /// RFC 6749 §4.1.2.1: every redirected error carries `state` and `iss`, an unsupported
    /// `response_mode` included (it was checked before `state` was read).
    @Test(arguments: [("response_mode", "fragment"), ("response_type", "token"), ("prompt", "bogus"), ("max_age", "-1"),
                      ("request", "x"), ("code_challenge_method", "plain")])
    func everyRedirectedErrorKeepsStateAndIss(name: String, value: String) {
        let pairs = n(dropping: [name]) + [(name, value)]
        guard case .errorRedirect(let target, _) = authorizer().decide(pairs, session: nil, user: nil) else {
            Issue.record("not an error redirect"); return
        }
        #expect(target.state == "state-123")
        #expect(target.issuer == Fixture.issuer)
        #expect(target.errorParameters(OAuthError(.invalidRequest, "x")).map(\.0) == ["error", "error_description", "state", "iss"])
    }

    @Test func validatedRequest() {
        let pairs = n(dropping: ["scope", "state", "nonce"]) + [("scope", "email bogus openid openid profile"),
                                                               ("state", String(repeating: "s", count: 2048)),
                                                               ("nonce", String(repeating: "n", count: 384)), ("max_age", "0300"),
                                                               ("audience", "https://api.example.com"), ("connection", "db"),
                                                               ("organization", "org_1"), ("screen_hint", "signup"), ("ui_locales", "fr")]
        guard case .login(let request, _) = authorizer().decide(pairs, session: nil, user: nil) else { Issue.record("not login"); return }
        #expect(request.scopes == ["openid", "profile", "email"])
        #expect(request.state == String(repeating: "s", count: 2048))
        #expect(request.nonce == String(repeating: "n", count: 384))
        #expect(request.maxAge == 300)
        #expect(request.codeChallenge == Fixture.challenge && request.codeChallengeMethod == "S256")
        #expect(request.audience == "https://api.example.com")
        #expect(request.connection == "db" && request.organization == "org_1" && request.screenHint == "signup" && request.uiLocales == "fr")
        #expect(request.auth0Client == "eyJuYW1lIjoiQXV0aDAuc3dpZnQifQ")
        // Round trip through a LoginTransaction's parameters.
        #expect(AuthorizationRequest(parameters: request.parameters()) == request)
    }

    @Test func roundTripMinimal() {
        let request = AuthorizationRequest(clientID: "c", redirectURI: "https://a.example.com/cb", prompt: [.login, .consent])
        #expect(AuthorizationRequest(parameters: request.parameters()) == request)
        #expect(AuthorizationRequest(parameters: ["client_id": "c"]) == nil)
        #expect(AuthorizationRequest(parameters: ["client_id": "c", "redirect_uri": "x", "max_age": "-1"]) == nil)
    }

    /// F04 with a moving clock: fresh login passes max_age=1, two seconds later it does not.
    @Test func maxAgeWithMutableClock() {
        let clock = MutableClock(Fixture.epoch)
        let core = authorizer(clock: clock)
        let pairs = n() + [("max_age", "1")]
        #expect(shape(core.decide(pairs, session: Fixture.session(), user: Fixture.alice)) == .code)
        clock.advance(by: 2)
        #expect(shape(core.decide(pairs, session: Fixture.session(), user: Fixture.alice)) == .login(.maxAgeExceeded))
    }

    @Test func sessionEdgeCases() {
        let core = authorizer()
        // Ended session, blocked user, or a session of another user than the one given.
        var ended = Fixture.session()
        ended.endedAt = Fixture.epoch
        #expect(shape(core.decide(n(), session: ended, user: Fixture.alice)) == .login(.noSession))
        #expect(shape(core.decide(n(), session: Fixture.session(Fixture.blocked), user: Fixture.blocked)) == .login(.noSession))
        #expect(shape(core.decide(n(), session: Fixture.session(), user: Fixture.bob)) == .login(.noSession))
        #expect(shape(core.decide(n() + [("prompt", "none")], session: ended, user: Fixture.alice)) == .redirect(.loginRequired))
    }

    @Test func postFormBehavesLikeGet() {
        // A20: the web layer hands POST form pairs in the same shape; the decision is identical.
        let get = authorizer().decide(n(), session: Fixture.session(), user: Fixture.alice)
        let post = authorizer().decide(Array(n().reversed()), session: Fixture.session(), user: Fixture.alice)
        #expect(get == post)
    }

    @Test func errorPageLogNamesTheReason() {
        let decision = authorizer().decide(n(dropping: ["redirect_uri"]) + [("redirect_uri", "https://evil.example.com/cb")], session: nil, user: nil)
        guard case .errorPage(let status, _, let log) = decision else { Issue.record("\(decision)"); return }
        #expect(status == 400)
        #expect(log.contains("no allowed callback uses the scheme https") || log.contains("host differs"))
    }
}

@Suite("Authorization responses")
struct AuthorizationResponseTests {
    let target = RedirectTarget(redirectURI: "https://app.example.com/cb", responseMode: .query, state: "a\r\nSet-Cookie: x=\"><script>", issuer: Fixture.issuer)

    @Test func injectionIsEncoded() {
        let url = AuthorizationResponse.redirectURL(for: target, parameters: target.successParameters(code: "c0de"))
        #expect(url == "https://app.example.com/cb?code=c0de&state=a%0D%0ASet-Cookie%3A%20x%3D%22%3E%3Cscript%3E&iss=https%3A%2F%2Fid.example.com%2F")
        #expect(!url.contains("\r") && !url.contains("\n") && !url.contains("\"") && !url.contains("<"))
    }

    @Test(arguments: [("https://a.example.com/cb?x=1", "https://a.example.com/cb?x=1&code=c"),
                      ("https://a.example.com/cb?", "https://a.example.com/cb?code=c"),
                      ("https://a.example.com/cb?x=1&", "https://a.example.com/cb?x=1&code=c"),
                      ("com.example.app:/cb", "com.example.app:/cb?code=c")])
    func existingQueryIsKept(_ pair: (String, String)) {
        let target = RedirectTarget(redirectURI: pair.0, responseMode: .query, state: nil, issuer: Fixture.issuer)
        #expect(AuthorizationResponse.redirectURL(for: target, parameters: [("code", "c")]) == pair.1)
    }

    @Test func errorParametersOnly() {
        let names = target.errorParameters(OAuthError(.accessDenied, "cancelled", detail: "secret detail")).map(\.0)
        #expect(names == ["error", "error_description", "state", "iss"])
        let noState = RedirectTarget(redirectURI: "https://a/cb", responseMode: .query, state: nil, issuer: Fixture.issuer)
        #expect(noState.errorParameters(OAuthError(.accessDenied, "x")).map(\.0) == ["error", "error_description", "iss"])
    }
}
