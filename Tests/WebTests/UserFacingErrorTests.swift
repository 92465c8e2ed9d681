import Testing
import OIDC
import Settings
@testable import Server

/// The one mapping from failures to the HTML pages people see: status, wording, `Retry-After`.
@Suite struct UserFacingErrorTests {
    static let issuer = try! Issuer.parse("https://id.example.com/").get()

    @Test(arguments: [
        (UserFacingError.signInExpired, 400, nil as String?),
        (.formRefused(message: "x"), 403, nil),
        (.tooManyAttempts(retryAfter: 42), 429, "42"),
        (.signInRefused(status: 503, message: "x"), 503, nil),
        (.stillSignedIn, 200, nil),
        (.failure(OAuthError(.temporarilyUnavailable, "busy"), activity: .signIn, requestID: "r-1"), 503, "1"),
        (.failure(OAuthError(.serverError, "internal error"), activity: .signOut, requestID: "r-2"), 500, nil),
    ])
    func statusAndRetry(_ error: UserFacingError, status: Int, retryAfter: String?) {
        let response = error.response(issuer: Self.issuer)
        #expect(response.status == status)
        #expect(response.headers["Retry-After"] == retryAfter)
        #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
    }

    /// A failure names the request id a user can quote, and never the internal detail.
    @Test func failuresQuoteTheRequestIDOnly() {
        let error = UserFacingError.failure(OAuthError(.serverError, "internal error", detail: "SQLite error 11: malformed"),
                                            activity: .signIn, requestID: "req-77")
        let text = String(decoding: error.response(issuer: Self.issuer).body, as: UTF8.self)
        #expect(text.contains("req-77"))
        #expect(!text.contains("SQLite") && !text.contains("malformed"))
    }
}
