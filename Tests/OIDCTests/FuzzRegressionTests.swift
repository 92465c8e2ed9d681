import Testing
@testable import OIDC

/// Inputs scripts/fuzz found (target `redirect-uri`), kept as regression tests; each failed before its fix.
@Suite struct RedirectURIFuzzRegressionTests {
    /// URLParts took whatever followed an IPv6 literal's `]` as the port, with or without `:`,
    /// so `[::1]6` was host [::1] and port 6. Such a URL differs from the entry outside the port,
    /// yet matches it under the RFC 8252 §7.3 loopback rule (and no browser can parse it).
    @Test func bytesAfterAnIPv6LiteralAreNotAPort() {
        let match = RedirectURIPolicy.match("http://[::1]6/oauth2redirect", allowed: ["http://[::1]/oauth2redirect"],
                                            kind: .callback, isNative: true)
        #expect(match != .allowed(entry: "http://[::1]/oauth2redirect"))
    }

    @Test func webOriginWithDigitsAfterTheBracketDoesNotMatch() {
        let match = RedirectURIPolicy.match("https://[2001:db8::1]443", allowed: ["https://[2001:db8::1]"], kind: .webOrigin, isNative: false)
        #expect(match != .allowed(entry: "https://[2001:db8::1]"))
    }

    @Test func registrationRefusesAPortWithoutColon() {
        let problems = RedirectURIPolicy.registrationProblems("http://[::1]8080/cb", kind: .callback, isNative: true)
        #expect(!problems.isEmpty)
    }
}
