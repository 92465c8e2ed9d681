import Crypto
import Foundation
import Model
import Storage
import Testing
import TestSupport

/// The pages of issue #17 through the daemon's real routes: refused callbacks that speak to the user,
/// the page an un-intercepted universal link lands on, branding, the user's language, and web_message.
@Suite("End-user pages in-process")
struct EndUserPagesTests {
    static let callback = "com.example.app://id.example.com/ios/com.example.app/callback"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    let harness: RouteHarness

    init() throws {
        harness = try RouteHarness()
        let clients = SQLiteClientStore(store: harness.store)
        try clients.create(Client(clientID: "ios-app", name: "Notes", type: .native,
                                  callbacks: [Self.callback, "https://id.example.com/ios/com.example.app/callback"],
                                  bundleID: "com.example.app", createdAt: Date(), logoURL: "https://cdn.example.com/notes.png",
                                  accentColor: "#ffd400"))
        try clients.create(Client(clientID: "spa-app", name: "Board", type: .spa, callbacks: ["https://board.example.com"],
                                  webOrigins: ["https://board.example.com"], createdAt: Date()))
    }

    func authorize(client: String = "ios-app", redirectURI: String = callback, _ extra: String = "") -> String {
        "/authorize?client_id=\(client)&response_type=code&redirect_uri=\(RouteHarness.encode(redirectURI))&state=st-1"
            + "&scope=openid&code_challenge=\(Self.challenge)&code_challenge_method=S256" + extra
    }

    /// A refused callback: words for the user, the code and the request id on the page; the precise reason in the log only.
    @Test func refusedCallbackShowsCodeAndRequestID() throws {
        let page = harness.get(authorize(redirectURI: "com.example.app://elsewhere/cb"))
        #expect(page.status == 400 && page.location == nil)
        #expect(page.text.contains("<dd><code>callback_not_allowed</code></dd>"))
        #expect(page.text.contains("Contact the app&#39;s support"))
        let requestID = try #require(page.text.range(of: #"(?<=Request ID</dt><dd><code>)[^<]+"#, options: .regularExpression))
        #expect(!page.text[requestID].isEmpty)
        #expect(!page.text.contains("elsewhere") && !page.text.contains("redirect_uri"))
    }

    /// ui_locales wins over Accept-Language; Accept-Language picks the language when there is none.
    @Test func pagesFollowUILocalesThenAcceptLanguage() {
        let japanese = harness.get(authorize(client: "nobody"), headers: [("Accept-Language", "ja-JP,ja;q=0.9,en;q=0.5")])
        #expect(japanese.text.contains("<html lang=\"ja\">") && japanese.text.contains("<dd><code>unknown_application</code></dd>"))
        #expect(japanese.text.contains("このアプリはここに登録されていない"))
        let english = harness.get(authorize(client: "nobody") + "&ui_locales=en", headers: [("Accept-Language", "ja")])
        #expect(english.text.contains("<html lang=\"en\">") && english.text.contains("This app is not known here"))
        let signedOut = harness.get("/v2/logout", headers: [("Accept-Language", "ja")])
        #expect(signedOut.text.contains("<html lang=\"ja\">") && signedOut.text.contains("ログアウトしました"))
    }

    @Test func unInterceptedUniversalLinkOffersTheAppForRegisteredBundlesOnly() {
        let page = harness.get("/ios/com.example.app/callback?code=abc&state=st-1&extra=1")
        #expect(page.status == 200 && page.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(page.text.contains("<a class=\"button primary\" href=\"\(Self.callback)?code=abc&amp;state=st-1\">Open Notes</a>"))
        #expect(page.headers["Cache-Control"] == "no-store" && page.headers["Referrer-Policy"] == "no-referrer")
        let japanese = harness.get("/ios/com.example.app/callback", headers: [("Accept-Language", "ja")])
        #expect(japanese.text.contains("Notes を開く"))
        for path in ["/ios/com.example.other/callback", "/android/com.example.app/callback", "/ios/com.example.app/other",
                     "/ios/com.example.app/callback/x", "/ios/"] {
            let response = harness.get(path)
            #expect(response.status == 404 && response.text == #"{"error":"not_found"}"#, "\(path)")
        }
    }

    /// The login page carries the application's logo and accent (black text on a light accent), in its CSP too.
    @Test func loginPageIsBranded() throws {
        let page = harness.get(authorize())
        #expect(page.status == 200)
        #expect(page.text.contains("<img class=\"logo\" src=\"https://cdn.example.com/notes.png\" alt=\"\" height=\"56\">"))
        #expect(page.text.contains("<style>:root{--accent:#ffd400;--accent-text:#000000}</style>"))
        let csp = try #require(page.headers["Content-Security-Policy"])
        #expect(csp.contains("img-src 'self' data: https://cdn.example.com;") && csp.contains("style-src 'self' 'sha256-"))
        #expect(page.headers["Cross-Origin-Opener-Policy"] == "same-origin")
    }

    /// web_message through the routes: prompt=none without a session posts login_required to the app's origin only.
    @Test func webMessageAnswersWithAPageForTheAppsOrigin() throws {
        let page = harness.get(authorize(client: "spa-app", redirectURI: "https://board.example.com", "&prompt=none&response_mode=web_message"))
        #expect(page.status == 200)
        #expect(page.text.contains("data-target-origin=\"https://board.example.com\""))
        #expect(page.text.contains("<input type=\"hidden\" name=\"error\" value=\"login_required\">"))
        #expect(page.text.contains("<input type=\"hidden\" name=\"state\" value=\"st-1\">"))
        #expect(page.headers["Content-Security-Policy"]?.contains("frame-ancestors https://board.example.com;") == true)
        #expect(page.headers["X-Frame-Options"] == nil)
        // The login page of a web_message sign-in (popup) keeps its opener; it still may not be framed.
        let login = harness.get(authorize(client: "spa-app", redirectURI: "https://board.example.com", "&response_mode=web_message"))
        #expect(login.status == 200 && login.text.contains("login-form"))
        #expect(login.headers["Cross-Origin-Opener-Policy"] == "unsafe-none" && login.headers["X-Frame-Options"] == "DENY")
        #expect(login.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        let discovery = harness.get("/.well-known/openid-configuration")
        #expect(discovery.text.contains(#""response_modes_supported":["query","form_post","web_message"]"#))
    }
}
