import HTTP
import Testing
@testable import Server

/// H04: cookie names and attributes follow the issuer's scheme.
@Suite struct CookieSpecTests {
    static func attributes(_ setCookie: String) -> [String] {
        setCookie.components(separatedBy: "; ")
    }

    @Test func httpsIssuerUsesHostPrefixSecurePathRootAndNoDomain() {
        let spec = CookieSpec(issuer: Fixtures.httpsIssuer)
        #expect(spec.sessionName == "__Host-gatehouse_session")
        #expect(spec.transactionName == "__Host-gatehouse_tx")
        for kind in CookieSpec.Kind.allCases {
            let cookie = spec.set(kind, value: "abc-_123", maxAge: 600)
            let parts = Self.attributes(cookie)
            #expect(parts.first == spec.name(kind) + "=abc-_123")
            #expect(parts.contains("Max-Age=600"))
            #expect(parts.contains("Secure"))
            #expect(parts.contains("Path=/"))
            #expect(parts.contains("HttpOnly"))
            // Only the upstream sign-in's cookie must come back with Apple's cross-site form POST.
            #expect(parts.contains(kind == .upstream ? "SameSite=None" : "SameSite=Lax"))
            #expect(!cookie.lowercased().contains("domain"))
        }
    }

    /// On an http issuer browsers refuse `SameSite=None` without `Secure`: the upstream cookie stays Lax.
    @Test func httpIssuerKeepsTheUpstreamCookieLax() {
        let parts = Self.attributes(CookieSpec(issuer: Fixtures.httpIssuer).set(.upstream, value: "v", maxAge: 60))
        #expect(parts == ["gatehouse_upstream=v", "Max-Age=60", "Path=/", "HttpOnly", "SameSite=Lax"])
    }

    /// The issuer's path prefix never narrows a `__Host-` cookie's Path.
    @Test func prefixedIssuerStillUsesPathRoot() {
        #expect(CookieSpec(issuer: Fixtures.httpsIssuer).set(.session, value: "v", maxAge: 1).contains("; Path=/; "))
    }

    @Test func httpIssuerUsesPlainNamesWithoutSecure() {
        let spec = CookieSpec(issuer: Fixtures.httpIssuer)
        #expect(spec.sessionName == "gatehouse_session")
        #expect(spec.transactionName == "gatehouse_tx")
        let parts = Self.attributes(spec.set(.transaction, value: "v", maxAge: 300))
        #expect(parts == ["gatehouse_tx=v", "Max-Age=300", "Path=/", "HttpOnly", "SameSite=Lax"])
    }

    @Test(arguments: [true, false])
    func deletionCookieExpiresAtOnce(_ secure: Bool) {
        let spec = CookieSpec(secure: secure)
        let parts = Self.attributes(spec.delete(.session))
        #expect(parts.first == spec.sessionName + "=")
        #expect(parts.contains("Max-Age=0"))
        #expect(parts.contains("HttpOnly") && parts.contains("SameSite=Lax") && parts.contains("Path=/"))
        #expect(parts.contains("Secure") == secure)
    }

    @Test func readsOnlyItsOwnName() {
        let spec = CookieSpec(issuer: Fixtures.httpsIssuer)
        let planted = HTTPHeaders([("Cookie", "gatehouse_session=planted")])
        #expect(spec.value(.session, in: planted) == nil)
        let real = HTTPHeaders([("Cookie", "other=1"), ("Cookie", "__Host-gatehouse_session=real; __Host-gatehouse_tx=t")])
        #expect(spec.value(.session, in: real) == "real")
        #expect(spec.value(.transaction, in: real) == "t")
        #expect(spec.value(.session, in: HTTPHeaders([("Cookie", "__Host-gatehouse_session=")])) == nil)
    }
}

@Suite struct CookieJarTests {
    @Test(arguments: [
        (nil, [:]),
        ("", [:]),
        ("a=1", ["a": "1"]),
        ("a=1; b=2", ["a": "1", "b": "2"]),
        ("  a = 1 ;b=2;   c=3  ", ["a": "1", "b": "2", "c": "3"]),
        ("a=1;a=2", ["a": "1"]),                       // first wins
        ("a=\"quoted\"", ["a": "quoted"]),
        ("a=", ["a": ""]),
        ("novalue; b=2", ["b": "2"]),                 // malformed pair ignored
        ("=nameless; b=2", ["b": "2"]),
        ("bad name=1; b=2", ["b": "2"]),
        ("a=x y; b=2", ["b": "2"]),                   // space inside a value
        ("a=x,y; b=2", ["b": "2"]),
        ("a=b=c", ["a": "b=c"]),
        (";;; a=1 ;;", ["a": "1"]),
        ("__Host-gatehouse_session=tok-EN_1", ["__Host-gatehouse_session": "tok-EN_1"]),
    ] as [(String?, [String: String])])
    func parses(_ header: String?, _ expected: [String: String]) {
        #expect(CookieJar.parse(header) == expected)
    }
}
