import Testing
@testable import OIDC

/// Inputs scripts/fuzz found (target `redirect-uri`), kept as regression tests. Each is a known
/// issue until Sources/OIDC is fixed; the harness skips these shapes meanwhile (see its comments).
@Suite struct RedirectURIFuzzRegressionTests {
    /// URLParts takes whatever follows an IPv6 literal's `]` as the port, with or without `:`,
    /// so `[::1]6` is host [::1] and port 6. Such a URL differs from the entry outside the port,
    /// yet matches it under the RFC 8252 §7.3 loopback rule (and no browser can parse it).
    @Test func bytesAfterAnIPv6LiteralAreNotAPort() {
        let match = RedirectURIPolicy.match("http://[::1]6/oauth2redirect", allowed: ["http://[::1]/oauth2redirect"],
                                            kind: .callback, isNative: true)
        withKnownIssue("URLParts reads digits right after ] as the port") {
            #expect(match != .allowed(entry: "http://[::1]/oauth2redirect"))
        }
    }

    @Test func webOriginWithDigitsAfterTheBracketDoesNotMatch() {
        let match = RedirectURIPolicy.match("https://[2001:db8::1]443", allowed: ["https://[2001:db8::1]"], kind: .webOrigin, isNative: false)
        withKnownIssue("URLParts reads digits right after ] as the port") {
            #expect(match != .allowed(entry: "https://[2001:db8::1]"))
        }
    }

    @Test func registrationRefusesAPortWithoutColon() {
        let problems = RedirectURIPolicy.registrationProblems("http://[::1]8080/cb", kind: .callback, isNative: true)
        withKnownIssue("URLParts reads digits right after ] as the port") {
            #expect(!problems.isEmpty)
        }
    }
}
