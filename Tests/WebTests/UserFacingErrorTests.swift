import Testing
import OIDC
import Settings
@testable import Server

/// The one mapping from failures to the HTML pages people see: status, code, wording, `Retry-After`.
@Suite struct UserFacingErrorTests {
    static let issuer = try! Issuer.parse("https://id.example.com/").get()
    static let english = PageText.shipped.language(["en"])
    static let japanese = PageText.shipped.language(["ja"])

    @Test(arguments: [
        (UserFacingError.signInExpired, 400, nil as String?),
        (.formRefused(signOut: false), 403, nil),
        (.tooManyAttempts(retryAfter: 42), 429, "42"),
        (.signInRefused(status: 503, code: "temporarily_unavailable"), 503, nil),
        (.stillSignedIn, 200, nil),
        (.failure(OAuthError(.temporarilyUnavailable, "busy"), activity: .signIn), 503, "1"),
        (.failure(OAuthError(.serverError, "internal error"), activity: .signOut), 500, nil),
    ])
    func statusAndRetry(_ error: UserFacingError, status: Int, retryAfter: String?) {
        let response = error.response(issuer: Self.issuer)
        #expect(response.status == status)
        #expect(response.headers["Retry-After"] == retryAfter)
        #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
    }

    /// A failure names the code and request id a user can quote, and never the internal detail.
    @Test func failuresQuoteTheCodeAndRequestIDOnly() {
        let error = UserFacingError.failure(OAuthError(.serverError, "internal error", detail: "SQLite error 11: malformed"), activity: .signIn)
        let text = String(decoding: error.response(issuer: Self.issuer, requestID: "req-77").body, as: UTF8.self)
        #expect(text.contains("<dd><code>req-77</code></dd>"))
        #expect(text.contains("<dd><code>sign_in_failed</code></dd>"))
        #expect(!text.contains("SQLite") && !text.contains("malformed"))
    }

    /// Every case has a title and message in both shipped languages (no key shown raw), and the
    /// Japanese page is really Japanese, with `lang` set.
    @Test(arguments: [
        UserFacingError.unreadable(form: true), .unreadable(form: false), .signInExpired, .formRefused(signOut: false),
        .formRefused(signOut: true), .tooManyAttempts(retryAfter: 1), .signOutRefused(code: "invalid_logout_request"),
        .signOutRefused(code: "logout_url_not_allowed"), .stillSignedIn,
        .serviceFailed(temporarily: true, activity: .signIn), .serviceFailed(temporarily: false, activity: .signIn),
        .serviceFailed(temporarily: true, activity: .signOut), .serviceFailed(temporarily: false, activity: .signOut),
    ] + UserFacingError.signInCodes.sorted().map { UserFacingError.signInRefused(status: 400, code: $0) })
    func everyPageIsInTheCatalogue(_ error: UserFacingError) {
        for (t, tag) in [(Self.english, "en"), (Self.japanese, "ja")] {
            for key in ["page_error.\(error.code).title", "page_error.\(error.code).message", "page_error.code_label"] {
                #expect(t.texts[key] != nil, "\(tag) lacks \(key)")
            }
            let html = String(decoding: error.response(issuer: Self.issuer, language: t, requestID: "r").body, as: UTF8.self)
            #expect(html.contains("<html lang=\"\(tag)\">"))
            #expect(!html.contains("page_error."), "a raw key on the \(tag) page for \(error)")
        }
    }

    /// An unknown code from the core gets the generic wording, never a raw key; the code shown is the generic one.
    @Test func unknownCodesFallBackToInvalidRequest() {
        let error = UserFacingError.signInRefused(status: 400, code: "something_new")
        #expect(error.code == "invalid_request")
        #expect(UserFacingError.signOutRefused(code: "other").code == "invalid_logout_request")
    }

    /// A refused callback: a message for the user (no "redirect_uri" jargon), the code, the request id.
    @Test func refusedCallbackSpeaksToTheUser() {
        let html = String(decoding: UserFacingError.signInRefused(status: 400, code: "callback_not_allowed")
            .response(issuer: Self.issuer, language: Self.japanese, requestID: "abc123").body, as: UTF8.self)
        #expect(html.contains("ログインできません"))
        #expect(html.contains("<dt>エラーコード</dt><dd><code>callback_not_allowed</code></dd>"))
        #expect(html.contains("<dt>リクエスト ID</dt><dd><code>abc123</code></dd>"))
        #expect(!html.contains("redirect_uri"))
    }
}
