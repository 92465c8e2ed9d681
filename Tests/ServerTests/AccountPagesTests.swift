import Crypto
import Foundation
import Model
import Storage
import Testing
import TestSupport

/// The login page's self-service steps through the daemon's real routes, in-process: signup with
/// the code step, password reset with a code, passwordless, `screen_hint=signup`, and what the page
/// offers per application. (The same in a real browser with a real mail server: Tests/interop.)
@Suite("Account pages in-process")
struct AccountPagesTests {
    static let callback = "com.example.app://id.example.com/ios/com.example.app/callback"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let strong = "Tr0ubadour-horse"
    let harness: RouteHarness
    let mail = MemoryMailQueue()

    init() throws {
        harness = try RouteHarness(mail: mail)
        let clients = SQLiteClientStore(store: harness.store)
        try clients.create(Client(clientID: "app", name: "Notes", type: .native,
                                  grantTypes: [.authorizationCode, .refreshToken, .passwordlessOTP], callbacks: [Self.callback],
                                  signupEnabled: true, requireEmailVerification: true, createdAt: Date()))
        try clients.create(Client(clientID: "plain", name: "Plain", type: .native, callbacks: [Self.callback], createdAt: Date()))
        try SQLiteUserStore(store: harness.store).create(User(
            userID: "auth0|alice", email: "alice@example.com", emailVerified: true, passwordHash: try PasswordHash.hash(Self.strong),
            createdAt: Date()))
    }

    func authorize(_ client: String = "app", extra: String = "") -> RouteHarness.Response {
        harness.get("/authorize?client_id=\(client)&response_type=code&redirect_uri=\(RouteHarness.encode(Self.callback))&state=s&nonce=n"
                    + "&scope=openid%20profile&code_challenge=\(Self.challenge)&code_challenge_method=S256" + extra)
    }

    /// Posts the page's form with the given fields and button.
    func press(_ action: String, on page: RouteHarness.Response, _ fields: [(String, String)] = []) throws -> RouteHarness.Response {
        let tx = try #require(HTMLForm.value(of: "tx", in: page.text))
        let csrf = try #require(HTMLForm.value(of: "csrf_token", in: page.text))
        return harness.post("/login", form: [("tx", tx), ("csrf_token", csrf), ("action", action)] + fields)
    }

    /// The resume hop ends on the callback with a code.
    func finish(_ signedIn: RouteHarness.Response) throws {
        #expect(signedIn.status == 303, "\(signedIn.text)")
        let back = harness.get(try #require(signedIn.location))
        #expect(back.status == 302)
        #expect(queryParameters(of: try #require(back.location))["code"] != nil)
    }

    @Test func thePageOffersWhatTheApplicationAllows() {
        let offered = authorize().text
        for action in ["show_signup", "show_forgot", "show_passwordless"] { #expect(offered.contains("value=\"\(action)\""), "\(action)") }
        let plain = authorize("plain").text
        #expect(!plain.contains("show_signup") && !plain.contains("show_passwordless"))
        #expect(plain.contains("show_forgot"))  // reset needs only email delivery
    }

    @Test func signupThenTheCodeThenSignedIn() throws {
        let login = authorize()
        let form = try press("show_signup", on: login)
        #expect(form.status == 200 && form.text.contains(#"autocomplete="new-password""#) && form.text.contains(#"autocomplete="email""#))
        let weak = try press("signup", on: form, [("email", "new@example.com"), ("password", "weak")])
        #expect(weak.status == 401 && weak.text.contains("id=\"password-error\"") && weak.text.contains("value=\"new@example.com\""))
        let step = try press("signup", on: form, [("email", "new@example.com"), ("password", Self.strong)])
        #expect(step.status == 200, "\(step.text)")
        #expect(step.text.contains(#"autocomplete="one-time-code" inputmode="numeric""#))
        let code = try #require(mail.last(to: "new@example.com")?.values["code"])
        let wrong = try press("verify_email", on: step, [("code", code == "000000" ? "111111" : "000000")])
        #expect(wrong.status == 401 && wrong.text.contains("id=\"code-error\""))
        try finish(try press("verify_email", on: step, [("code", code)]))
        #expect(try SQLiteUserStore(store: harness.store).find(email: "new@example.com")?.emailVerified == true)
    }

    @Test func theCodeStepBelongsToTheBrowserThatProvedThePassword() throws {
        let page = authorize()
        _ = try press("signup", on: page, [("email", "victim@example.com"), ("password", Self.strong)])
        let code = try #require(mail.last(to: "victim@example.com")?.values["code"])
        // Another browser, another transaction: the code alone signs nobody in there.
        harness.clearCookies()
        let other = authorize()
        let attempt = try press("verify_email", on: other, [("email", "victim@example.com"), ("code", code)])
        #expect(attempt.status == 200 && attempt.headers["Location"] == nil)
        #expect(harness.cookies["__Host-gatehouse_session"] == nil)
    }

    @Test func screenHintSignupOpensTheSignupForm() {
        #expect(authorize(extra: "&screen_hint=signup").text.contains(#"value="signup""#))
        #expect(!authorize("plain", extra: "&screen_hint=signup").text.contains(#"value="signup""#))
    }

    @Test func forgotPasswordWithACodeSignsInWithTheNewPassword() throws {
        let forgot = try press("show_forgot", on: authorize())
        let step = try press("reset_request", on: forgot, [("email", "alice@example.com")])
        #expect(step.status == 200 && step.text.contains("alice@example.com"))
        let code = try #require(mail.last(to: "alice@example.com")?.values["code"])
        #expect(mail.last(to: "alice@example.com")?.values["link"] == nil)  // the page takes the code
        try finish(try press("reset_password", on: step, [("email", "alice@example.com"), ("code", code), ("password", "N3w-Password!")]))
        let hash = try #require(try SQLiteUserStore(store: harness.store).find(email: "alice@example.com")?.passwordHash)
        #expect(PasswordHash.verify("N3w-Password!", against: hash))
    }

    @Test func aResetForAnUnknownAddressLooksTheSame() throws {
        let forgot = try press("show_forgot", on: authorize())
        let known = try press("reset_request", on: forgot, [("email", "alice@example.com")])
        let unknown = try press("reset_request", on: forgot, [("email", "ghost@example.com")])
        #expect(known.status == unknown.status)
        #expect(known.text.replacingOccurrences(of: "alice", with: "x") == unknown.text.replacingOccurrences(of: "ghost", with: "x"))
        #expect(mail.messages.map(\.to) == ["alice@example.com"])
    }

    @Test func passwordlessOnThePage() throws {
        let start = try press("show_passwordless", on: authorize())
        let step = try press("passwordless_start", on: start, [("email", "alice@example.com")])
        let code = try #require(mail.last(to: "alice@example.com")?.values["code"])
        try finish(try press("passwordless_verify", on: step, [("email", "alice@example.com"), ("code", code)]))
    }

    @Test func anUnverifiedUserIsAskedForTheCodeAfterThePassword() throws {
        try SQLiteUserStore(store: harness.store).create(User(
            userID: "auth0|late", email: "late@example.com", passwordHash: try PasswordHash.hash(Self.strong), createdAt: Date()))
        let step = try press("login", on: authorize(), [("email", "late@example.com"), ("password", Self.strong)])
        #expect(step.status == 200 && step.text.contains("one-time-code"), "\(step.text)")
        let code = try #require(mail.last(to: "late@example.com")?.values["code"])
        try finish(try press("verify_email", on: step, [("code", code)]))
    }

    @Test func pagesSpeakJapaneseWhenAsked() {
        let page = authorize(extra: "&ui_locales=ja")
        #expect(page.text.contains(#"<html lang="ja">"#) && page.text.contains("ログイン"))
        let byHeader = harness.get("/authorize?client_id=app&response_type=code&redirect_uri=\(RouteHarness.encode(Self.callback))"
                                   + "&state=s&scope=openid&code_challenge=\(Self.challenge)&code_challenge_method=S256",
                                   headers: [("Accept-Language", "fr;q=0.9, ja-JP;q=0.8, en;q=0.1")])
        #expect(byHeader.text.contains(#"<html lang="ja">"#))
        #expect(authorize().text.contains(#"<html lang="en">"#))
    }
}
