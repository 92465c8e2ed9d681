import Crypto
import Foundation
import JOSE
import Model
import Testing
import TestSupport
@testable import OIDC

/// The logout decisions for Auth0's /v2/logout and OIDC RP-Initiated Logout (negative tests F07–F11).
@Suite struct LogoutDecisionTests {
    static let bye = "https://app.example.com/bye"
    static let app = Client(clientID: "web-app", name: "Web", type: .regular, secretHash: Fixture.secretHash,
                            callbacks: [Fixture.webCallback], logoutURLs: [bye, "https://app.example.com/q?x=1"], createdAt: Fixture.epoch)
    static let noLogout = Client(clientID: "plain", name: "Plain", type: .regular, callbacks: [Fixture.webCallback], createdAt: Fixture.epoch)
    static let policy = LogoutPolicy(issuer: Fixture.issuer, clients: MemoryClientStore([app, noLogout, Fixture.native]), hintKeys: TestSigner.keys)

    static func hint(sub: String = Fixture.alice.userID, aud: String = app.clientID, key: SigningKey = TestSigner.rsa) -> String {
        Fixture.idToken(sub: sub, aud: aud, key: key)
    }

    static func isRefusal(_ decision: LogoutDecision) -> Bool {
        if case .refuse = decision { return true }
        return false
    }

    // MARK: /v2/logout

    @Test(arguments: [
        // returnTo with a query: ignored in matching, kept in the redirect.
        (bye + "?from=app#frag", bye + "?from=app#frag"),
        (bye, bye),
        ("HTTPS://APP.example.com/bye", "HTTPS://APP.example.com/bye"),  // scheme and host case-insensitive
    ])
    func v2RedirectsAtOnceToAnAllowedReturnToExactlyAsGiven(returnTo: String, location: String) {
        let decision = Self.policy.auth0Logout([("federated", ""), ("returnTo", returnTo), ("client_id", Self.app.clientID)])
        #expect(decision == .end(.redirect(location)))
    }

    @Test(arguments: ["https://app.example.com/Bye", "https://evil.example.com/bye", "https://app.example.com/bye/more", "javascript:alert(1)"])
    func v2RefusesAReturnToNotOnTheList(returnTo: String) {
        #expect(Self.isRefusal(Self.policy.auth0Logout([("returnTo", returnTo), ("client_id", Self.app.clientID)])))
    }

    @Test func v2Defaults() {
        #expect(Self.policy.auth0Logout([("client_id", Self.app.clientID)]) == .end(.redirect(Self.bye)))
        #expect(Self.policy.auth0Logout([("client_id", Self.noLogout.clientID)]) == .end(.signedOutPage(appName: "Plain")))
        #expect(Self.policy.auth0Logout([]) == .end(.signedOutPage(appName: nil)))
        #expect(Self.policy.auth0Logout([("federated", "")]) == .end(.signedOutPage(appName: nil)))
        // No tenant-level list: returnTo needs client_id.
        #expect(Self.isRefusal(Self.policy.auth0Logout([("returnTo", Self.bye)])))
        #expect(Self.isRefusal(Self.policy.auth0Logout([("client_id", "nobody"), ("returnTo", Self.bye)])))
        #expect(Self.isRefusal(Self.policy.auth0Logout([("client_id", Self.app.clientID), ("returnTo", Self.bye), ("returnTo", Self.bye)])))
    }

    // MARK: /oidc/logout

    /// F11: a valid hint ends the session at once and the redirect carries the same state.
    @Test func f11ValidHintRedirectsWithState() {
        let decision = Self.policy.rpInitiatedLogout([("id_token_hint", Self.hint()), ("post_logout_redirect_uri", Self.bye),
                                                      ("state", "st ate&1")], sessionUserID: Fixture.alice.userID, confirmed: false)
        #expect(decision == .end(.redirect(Self.bye + "?state=st%20ate%261")))
        // With client_id too, and a registered URL that has a query (exact, query included).
        let withQuery = Self.policy.rpInitiatedLogout([("id_token_hint", Self.hint()), ("client_id", Self.app.clientID),
                                                       ("post_logout_redirect_uri", "https://app.example.com/q?x=1"), ("state", "s")],
                                                      sessionUserID: nil, confirmed: false)
        #expect(withQuery == .end(.redirect("https://app.example.com/q?x=1&state=s")))
        // Without a redirect: the signed-out page.
        #expect(Self.policy.rpInitiatedLogout([("id_token_hint", Self.hint())], sessionUserID: Fixture.alice.userID, confirmed: false)
            == .end(.signedOutPage(appName: "Web")))
    }

    /// F07: not registered, or registered but with `?foo=bar` added → no redirect.
    @Test(arguments: [bye + "?foo=bar", "https://evil.example.com/bye", "https://app.example.com/q", "https://APP.example.com/bye"])
    func f07UnregisteredPostLogoutRedirectIsRefused(uri: String) {
        let decision = Self.policy.rpInitiatedLogout([("id_token_hint", Self.hint()), ("post_logout_redirect_uri", uri)],
                                                     sessionUserID: Fixture.alice.userID, confirmed: true)
        #expect(Self.isRefusal(decision))
    }

    /// F08: alg none, another key, another audience → no redirect.
    @Test func f08ForgedHintsAreRefused() throws {
        let claims: [String: JSONValue] = ["iss": .string(Fixture.issuer), "sub": .string(Fixture.alice.userID), "aud": .string(Self.app.clientID)]
        let none = Base64URL.encode(Array(#"{"alg":"none","kid":"RS256-kid"}"#.utf8)) + "." + Base64URL.encode(JSONBody.encode(claims)) + "."
        let hints = [none, Self.hint(key: TestSigner.foreign), Self.hint(aud: Fixture.native.clientID), "garbage"]
        for hint in hints {
            let decision = Self.policy.rpInitiatedLogout([("id_token_hint", hint), ("client_id", Self.app.clientID),
                                                          ("post_logout_redirect_uri", Self.bye)], sessionUserID: Fixture.alice.userID, confirmed: false)
            #expect(Self.isRefusal(decision))
        }
    }

    /// F09 / F12: a redirect without a hint needs the user's confirmation (a POST with a CSRF token).
    @Test func f09NoHintAsksForConfirmation() {
        let decision = Self.policy.rpInitiatedLogout([("client_id", Self.app.clientID), ("post_logout_redirect_uri", Self.bye), ("state", "s")],
                                                     sessionUserID: Fixture.alice.userID, confirmed: false)
        #expect(decision == .confirm(appName: "Web", fields: [LogoutField("client_id", Self.app.clientID),
                                                              LogoutField("post_logout_redirect_uri", Self.bye), LogoutField("state", "s")]))
        // Even without a session, a redirect is only followed after confirmation.
        guard case .confirm = Self.policy.rpInitiatedLogout([("client_id", Self.app.clientID), ("post_logout_redirect_uri", Self.bye)],
                                                            sessionUserID: nil, confirmed: false) else {
            Issue.record("expected confirmation"); return
        }
        // The confirmed POST then ends the session and redirects with the state.
        #expect(Self.policy.rpInitiatedLogout([("client_id", Self.app.clientID), ("post_logout_redirect_uri", Self.bye), ("state", "s")],
                                              sessionUserID: Fixture.alice.userID, confirmed: true) == .end(.redirect(Self.bye + "?state=s")))
        // A hint for another user than the signed-in one is not enough either.
        guard case .confirm = Self.policy.rpInitiatedLogout([("id_token_hint", Self.hint(sub: Fixture.bob.userID))],
                                                            sessionUserID: Fixture.alice.userID, confirmed: false) else {
            Issue.record("expected confirmation"); return
        }
    }

    /// F10: no parameters or only state → the signed-out page (directly when there is no session, after confirmation otherwise).
    @Test func f10NoParametersEndsOnTheSignedOutPage() {
        for pairs in [[], [("state", "s")]] as [[(String, String)]] {
            #expect(Self.policy.rpInitiatedLogout(pairs, sessionUserID: nil, confirmed: false) == .end(.signedOutPage(appName: nil)))
            guard case .confirm = Self.policy.rpInitiatedLogout(pairs, sessionUserID: Fixture.alice.userID, confirmed: false) else {
                Issue.record("expected confirmation"); continue
            }
            #expect(Self.policy.rpInitiatedLogout(pairs, sessionUserID: Fixture.alice.userID, confirmed: true) == .end(.signedOutPage(appName: nil)))
        }
    }

    @Test func otherRefusals() {
        // A redirect needs a client to check it against.
        #expect(Self.isRefusal(Self.policy.rpInitiatedLogout([("post_logout_redirect_uri", Self.bye)], sessionUserID: nil, confirmed: true)))
        #expect(Self.isRefusal(Self.policy.rpInitiatedLogout([("client_id", "nobody")], sessionUserID: nil, confirmed: false)))
        // client_id must be in the hint's audience.
        #expect(Self.isRefusal(Self.policy.rpInitiatedLogout([("id_token_hint", Self.hint()), ("client_id", Fixture.native.clientID)],
                                                             sessionUserID: nil, confirmed: false)))
        #expect(Self.isRefusal(Self.policy.rpInitiatedLogout([("state", "a"), ("state", "b")], sessionUserID: nil, confirmed: false)))
    }
}
