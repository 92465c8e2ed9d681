import Testing
@testable import OIDC

/// One allow-list matching case.
struct MatchCase: CustomTestStringConvertible, Sendable {
    let entries: [String]
    let requested: String
    let kind: RedirectURIPolicy.ListKind
    let isNative: Bool
    let allowed: Bool
    let note: String

    init(_ note: String, _ entries: [String], _ requested: String, _ kind: RedirectURIPolicy.ListKind = .callback,
         native: Bool = false, allowed: Bool) {
        self.note = note
        self.entries = entries
        self.requested = requested
        self.kind = kind
        self.isNative = native
        self.allowed = allowed
    }

    var testDescription: String { "\(note): \(requested)" }
}

let cb = "https://app.example.com/callback"
let nfc = "https://app.example.com/caf\u{E9}"
let nfd = "https://app.example.com/cafe\u{301}"

let matchCases: [MatchCase] = [
    // Exact callbacks and near misses (A01, A03, A04, A05).
    .init("exact", [cb], cb, allowed: true),
    .init("second entry", ["https://other.example.com/x", cb], cb, allowed: true),
    .init("extra characters appended", [cb], cb + "x", allowed: false),
    .init("trailing slash", [cb], cb + "/", allowed: false),
    .init("scheme case", [cb], "HTTPS://app.example.com/callback", allowed: false),
    .init("host case", [cb], "https://App.example.com/callback", allowed: false),
    .init("extra query", [cb], cb + "?foo=bar", allowed: false),
    .init("altered query", [cb + "?a=1"], cb + "?a=2", allowed: false),
    .init("registered query exact", [cb + "?a=1"], cb + "?a=1", allowed: true),
    .init(":443 added", [cb], "https://app.example.com:443/callback", allowed: false),
    .init("%2F", ["https://app.example.com/cb/x"], "https://app.example.com/cb%2Fx", allowed: false),
    .init("dot segments", ["https://app.example.com/cb"], "https://app.example.com/cb/../cb", allowed: false),
    .init("userinfo trick", [cb], "https://app.example.com@evil.example/callback", allowed: false),
    .init("backslash", [cb], "https://app.example.com\\@evil.example/callback", allowed: false),
    .init("fragment", [cb], cb + "#frag", allowed: false),
    .init("fragment registered too", [cb + "#frag"], cb + "#frag", allowed: false),
    .init("NFD vs NFC", [nfc], nfd, allowed: false),
    .init("NFC vs NFD", [nfd], nfc, allowed: false),
    .init("NFC exact", [nfc], nfc, allowed: true),
    .init("lookalike Cyrillic a", [cb], "https://\u{430}pp.example.com/callback", allowed: false),
    .init("percent-encoded host", [cb], "https://%61pp.example.com/callback", allowed: false),
    .init("relative", [cb], "/callback", allowed: false),
    .init("empty", [cb], "", allowed: false),
    .init("no entries", [], cb, allowed: false),
    // Wildcards.
    .init("wildcard one label", ["https://*.example.com/cb"], "https://a.example.com/cb", allowed: true),
    .init("wildcard two labels", ["https://*.example.com/cb"], "https://a.b.example.com/cb", allowed: false),
    .init("wildcard zero labels", ["https://*.example.com/cb"], "https://example.com/cb", allowed: false),
    .init("wildcard other domain", ["https://*.example.com/cb"], "https://a.evil.com/cb", allowed: false),
    .init("wildcard suffix trick", ["https://*.example.com/cb"], "https://a.example.com.evil.com/cb", allowed: false),
    .init("wildcard userinfo", ["https://*.example.com/cb"], "https://a.example.com@evil.com/cb", allowed: false),
    .init("wildcard userinfo 2", ["https://*.example.com/cb"], "https://evil.com@a.example.com/cb", allowed: false),
    .init("wildcard backslash", ["https://*.example.com/cb"], "https://a\\.example.com/cb", allowed: false),
    .init("wildcard percent", ["https://*.example.com/cb"], "https://a%2e.example.com/cb", allowed: false),
    .init("wildcard path differs", ["https://*.example.com/cb"], "https://a.example.com/cb2", allowed: false),
    .init("wildcard query added", ["https://*.example.com/cb"], "https://a.example.com/cb?x", allowed: false),
    .init("wildcard port added", ["https://*.example.com/cb"], "https://a.example.com:8443/cb", allowed: false),
    .init("wildcard scheme http", ["https://*.example.com/cb"], "http://a.example.com/cb", allowed: false),
    .init("wildcard prefix", ["https://pr-*.example.com/cb"], "https://pr-42.example.com/cb", allowed: true),
    .init("wildcard prefix missing", ["https://pr-*.example.com/cb"], "https://qa-42.example.com/cb", allowed: false),
    .init("wildcard prefix empty star", ["https://pr-*.example.com/cb"], "https://pr-.example.com/cb", allowed: false),
    .init("wildcard suffix", ["https://*-app.example.com/cb"], "https://blue-app.example.com/cb", allowed: true),
    .init("wildcard over TLD entry is literal", ["https://*.com/cb"], "https://example.com/cb", allowed: false),
    .init("evil wildcard entry only matches evil", ["https://*.evil.com/cb"], "https://app.example.com/cb", allowed: false),
    .init("two stars entry literal", ["https://*.*.example.com/cb"], "https://a.b.example.com/cb", allowed: false),
    .init("star in path is literal", ["https://app.example.com/*"], "https://app.example.com/x", allowed: false),
    // Loopback, RFC 8252 §7.3 (A06, A07).
    .init("loopback v4 any port", ["http://127.0.0.1/cb"], "http://127.0.0.1:51004/cb", native: true, allowed: true),
    .init("loopback v6 any port", ["http://[::1]/cb"], "http://[::1]:51004/cb", native: true, allowed: true),
    .init("loopback registered port, other port", ["http://127.0.0.1:8080/cb"], "http://127.0.0.1:9090/cb", native: true, allowed: true),
    .init("loopback no port", ["http://127.0.0.1:8080/cb"], "http://127.0.0.1/cb", native: true, allowed: true),
    .init("loopback not native", ["http://127.0.0.1/cb"], "http://127.0.0.1:51004/cb", native: false, allowed: false),
    .init("loopback other path", ["http://127.0.0.1/cb"], "http://127.0.0.1:51004/other", native: true, allowed: false),
    .init("loopback query added", ["http://127.0.0.1/cb"], "http://127.0.0.1:51004/cb?x=1", native: true, allowed: false),
    .init("loopback https", ["https://127.0.0.1/cb"], "https://127.0.0.1:51004/cb", native: true, allowed: false),
    .init("loopback http entry, https request", ["http://127.0.0.1/cb"], "https://127.0.0.1:51004/cb", native: true, allowed: false),
    .init("localhost not loopback literal", ["http://localhost/cb"], "http://localhost:51004/cb", native: true, allowed: false),
    .init("localhost vs 127.0.0.1", ["http://127.0.0.1/cb"], "http://localhost:51004/cb", native: true, allowed: false),
    .init("127.0.0.1.evil.example", ["http://127.0.0.1/cb"], "http://127.0.0.1.evil.example:51004/cb", native: true, allowed: false),
    .init("loopback userinfo", ["http://127.0.0.1/cb"], "http://127.0.0.1:1@evil.example/cb", native: true, allowed: false),
    .init("loopback port garbage", ["http://127.0.0.1/cb"], "http://127.0.0.1:99999/cb", native: true, allowed: false),
    .init("loopback port letters", ["http://127.0.0.1/cb"], "http://127.0.0.1:80a/cb", native: true, allowed: false),
    .init("non-loopback port change", ["https://app.example.com/cb"], "https://app.example.com:8443/cb", native: true, allowed: false),
    // Custom schemes (A09).
    .init("custom scheme exact", ["com.example.app://tenant.example.com/ios/com.example.app/callback"],
          "com.example.app://tenant.example.com/ios/com.example.app/callback", native: true, allowed: true),
    .init("custom scheme changed path", ["com.example.app://tenant.example.com/ios/com.example.app/callback"],
          "com.example.app://tenant.example.com/ios/com.example.app/callbac", native: true, allowed: false),
    .init("custom scheme other app", ["com.example.app://tenant.example.com/ios/com.example.app/callback"],
          "com.evil.app://tenant.example.com/ios/com.example.app/callback", native: true, allowed: false),
    .init("custom single slash exact", ["com.example.app:/callback"], "com.example.app:/callback", native: true, allowed: true),
    .init("custom single slash changed", ["com.example.app:/callback"], "com.example.app:/oauth2redirect", native: true, allowed: false),
    .init("custom scheme case", ["com.example.app:/callback"], "com.Example.app:/callback", native: true, allowed: false),
    .init("universal link exact", ["https://tenant.example.com/ios/com.example.app/callback"],
          "https://tenant.example.com/ios/com.example.app/callback", native: true, allowed: true),
    // Logout URLs (Auth0 /v2/logout).
    .init("logout exact", ["https://app.example.com/bye"], "https://app.example.com/bye", .logout, allowed: true),
    .init("logout query ignored", ["https://app.example.com/bye"], "https://app.example.com/bye?x=1", .logout, allowed: true),
    .init("logout fragment ignored", ["https://app.example.com/bye"], "https://app.example.com/bye#f", .logout, allowed: true),
    .init("logout entry with a query, v2", ["https://app.example.com/bye?tenant=1"], "https://app.example.com/bye", .logout, allowed: true),
    // /oidc/logout matches post_logout_redirect_uri exactly under the callback rules, query included.
    .init("logout entry with a query, oidc exact", ["https://app.example.com/bye?tenant=1"], "https://app.example.com/bye?tenant=1",
          allowed: true),
    .init("logout entry with a query, oidc other query", ["https://app.example.com/bye?tenant=1"], "https://app.example.com/bye?tenant=2",
          allowed: false),
    .init("logout entry with a query, oidc no query", ["https://app.example.com/bye?tenant=1"], "https://app.example.com/bye",
          allowed: false),
    .init("logout host case", ["https://app.example.com/bye"], "HTTPS://APP.Example.com/bye", .logout, allowed: true),
    .init("logout path case", ["https://app.example.com/bye"], "https://app.example.com/Bye", .logout, allowed: false),
    .init("logout trailing slash", ["https://app.example.com/bye"], "https://app.example.com/bye/", .logout, allowed: false),
    .init("logout other host", ["https://app.example.com/bye"], "https://evil.example.com/bye", .logout, allowed: false),
    .init("logout userinfo", ["https://app.example.com/bye"], "https://app.example.com@evil.example/bye", .logout, allowed: false),
    .init("logout port", ["https://app.example.com/bye"], "https://app.example.com:8443/bye", .logout, allowed: false),
    .init("logout wildcard", ["https://*.example.com/bye"], "https://A.example.com/bye?x", .logout, allowed: true),
    .init("logout wildcard two labels", ["https://*.example.com/bye"], "https://a.b.example.com/bye", .logout, allowed: false),
    .init("logout custom scheme", ["com.example.app://t.example.com/ios/com.example.app/callback"],
          "com.example.app://t.example.com/ios/com.example.app/callback", .logout, native: true, allowed: true),
    .init("logout loopback native", ["http://127.0.0.1/bye"], "http://127.0.0.1:5000/bye", .logout, native: true, allowed: true),
    // Web origins.
    .init("origin exact", ["https://app.example.com"], "https://app.example.com", .webOrigin, allowed: true),
    .init("origin default port", ["https://app.example.com"], "https://app.example.com:443", .webOrigin, allowed: true),
    .init("origin default port in entry", ["https://app.example.com:443"], "https://app.example.com", .webOrigin, allowed: true),
    .init("origin other port", ["https://app.example.com"], "https://app.example.com:8443", .webOrigin, allowed: false),
    .init("origin http dev", ["http://localhost:3000"], "http://localhost:3000", .webOrigin, allowed: true),
    .init("origin case", ["https://app.example.com"], "https://APP.example.com", .webOrigin, allowed: true),
    .init("origin with path", ["https://app.example.com"], "https://app.example.com/x", .webOrigin, allowed: false),
    .init("origin scheme", ["https://app.example.com"], "http://app.example.com", .webOrigin, allowed: false),
    .init("origin wildcard", ["https://*.example.com"], "https://a.example.com", .webOrigin, allowed: true),
    .init("origin wildcard two labels", ["https://*.example.com"], "https://a.b.example.com", .webOrigin, allowed: false),
    .init("origin null", ["https://app.example.com"], "null", .webOrigin, allowed: false),
]

@Suite("RedirectURIPolicy.match")
struct RedirectURIMatchTests {
    @Test(arguments: matchCases)
    func matches(_ row: MatchCase) {
        let result = RedirectURIPolicy.match(row.requested, allowed: row.entries, kind: row.kind, isNative: row.isNative)
        if row.allowed {
            guard case .allowed = result else {
                Issue.record("expected allowed, got \(result)")
                return
            }
        } else {
            guard case .refused(let reason, _) = result else {
                Issue.record("expected refused, got \(result)")
                return
            }
            #expect(!reason.isEmpty)
        }
    }

    @Test func allowedNamesTheEntry() {
        #expect(RedirectURIPolicy.match("https://a.example.com/cb", allowed: [cb, "https://*.example.com/cb"], kind: .callback, isNative: false)
            == .allowed(entry: "https://*.example.com/cb"))
    }
}

/// One registration case (A08).
struct RegistrationCase: CustomTestStringConvertible, Sendable {
    let entry: String
    let kind: RedirectURIPolicy.ListKind
    let isNative: Bool
    let acceptable: Bool
    init(_ entry: String, _ kind: RedirectURIPolicy.ListKind = .callback, native: Bool = false, ok: Bool) {
        self.entry = entry
        self.kind = kind
        self.isNative = native
        self.acceptable = ok
    }
    var testDescription: String { "\(entry) \(kind) native=\(isNative)" }
}

let registrationCases: [RegistrationCase] = [
    .init("https://app.example.com/callback", ok: true),
    .init("https://app.example.com/callback?tenant=1", ok: true),
    .init("https://app.example.com:8443/callback", ok: true),
    .init("http://app.example.com/callback", ok: false),
    .init("http://app.example.com/callback", native: true, ok: false),
    .init("http://127.0.0.1/callback", native: true, ok: true),
    .init("http://[::1]/callback", native: true, ok: true),
    .init("http://localhost:3000/callback", ok: true),
    .init("javascript:alert(1)", ok: false),
    .init("javascript:alert(1)", native: true, ok: false),
    .init("data:text/html,hi", native: true, ok: false),
    .init("file:///etc/passwd", native: true, ok: false),
    .init("vbscript:msgbox", native: true, ok: false),
    .init("myapp://callback", native: true, ok: true),
    .init("myapp:/callback", native: true, ok: true),
    .init("com.example.app:/callback", native: true, ok: true),
    .init("com.example.app://tenant.example.com/ios/com.example.app/callback", native: true, ok: true),
    .init("com.example.app:/callback", ok: false),
    .init("https://*.x", ok: false),
    .init("https://*.com/cb", ok: false),
    .init("https://*.example.com/cb", ok: true),
    .init("https://pr-*.example.com/cb", ok: true),
    .init("https://*.*.example.com/cb", ok: false),
    .init("https://a.*.example.com/cb", ok: false),
    .init("https://app.example.com/*", ok: false),
    .init("https://app.example.com/cb?x=*", ok: false),
    .init("*://app.example.com/cb", ok: false),
    .init("https://*.127.0.0.1/cb", ok: false),
    .init("https://app.example.com/cb#frag", ok: false),
    .init("https://app.example.com/cb#", ok: false),
    .init("https://app.example.com/c b", ok: false),
    .init("https://app.example.com/cb\n", ok: false),
    .init("https://app.example.com/cb\t", ok: false),
    .init("/callback", ok: false),
    .init("app.example.com/callback", ok: false),
    .init("", ok: false),
    .init("https://user@app.example.com/cb", ok: false),
    .init("https://app.example.com\\cb", ok: false),
    .init("https:///cb", ok: false),
    .init("https://app.example.com:99999/cb", ok: false),
    .init("HTTPS://app.example.com/cb", ok: false),
    .init("https://caf\u{E9}.example.com/cb", ok: false),
    // Logout.
    .init("https://app.example.com/bye", .logout, ok: true),
    .init("https://app.example.com/bye?x=1", .logout, ok: true),  // RP-Initiated Logout matches it exactly
    .init("com.example.app://t.example.com/ios/com.example.app/callback", .logout, native: true, ok: true),
    // Web origins.
    .init("https://app.example.com", .webOrigin, ok: true),
    .init("https://app.example.com:8443", .webOrigin, ok: true),
    .init("https://*.example.com", .webOrigin, ok: true),
    .init("http://localhost:3000", .webOrigin, ok: true),
    .init("https://app.example.com/", .webOrigin, ok: false),
    .init("https://app.example.com/path", .webOrigin, ok: false),
    .init("https://app.example.com?x", .webOrigin, ok: false),
    .init("com.example.app://x", .webOrigin, native: true, ok: false),
]

@Suite("RedirectURIPolicy.registrationProblems")
struct RedirectURIRegistrationTests {
    @Test(arguments: registrationCases)
    func registration(_ row: RegistrationCase) {
        let problems = RedirectURIPolicy.registrationProblems(row.entry, kind: row.kind, isNative: row.isNative)
        #expect(problems.isEmpty == row.acceptable, "\(problems)")
    }

    @Test func overTLDSaysSo() {
        let problems = RedirectURIPolicy.registrationProblems("https://*.com/cb", kind: .callback, isNative: false)
        #expect(problems.contains { $0.contains("top-level domain") })
    }

    @Test func dotlessCustomSchemeIsAcceptedWithAWarningCitingRFC() {
        #expect(RedirectURIPolicy.registrationProblems("myapp:/cb", kind: .callback, isNative: true).isEmpty)
        let warnings = RedirectURIPolicy.registrationWarnings("myapp://callback", kind: .logout, isNative: true)
        #expect(warnings.count == 1 && warnings[0].contains("RFC 8252 §7.1"))
        #expect(RedirectURIPolicy.registrationWarnings("com.example.app://cb", kind: .callback, isNative: true).isEmpty)
        #expect(RedirectURIPolicy.registrationWarnings("https://app.example.com/cb", kind: .callback, isNative: true).isEmpty)
        // Refused outright for other app types, so no warning is needed there.
        #expect(!RedirectURIPolicy.registrationProblems("myapp://cb", kind: .callback, isNative: false).isEmpty)
    }
}

@Suite("RedirectURIPolicy diagnostics")
struct RedirectURIDiagnosticsTests {
    func refusal(_ requested: String, _ entries: [String], _ kind: RedirectURIPolicy.ListKind = .callback,
                 native: Bool = false) -> (String, String?) {
        guard case .refused(let reason, let nearest) = RedirectURIPolicy.match(requested, allowed: entries, kind: kind, isNative: native) else {
            Issue.record("unexpectedly allowed")
            return ("", nil)
        }
        return (reason, nearest)
    }

    @Test func unknownScheme() {
        let (reason, nearest) = refusal("com.evil.app:/cb", [cb, "com.example.app:/cb"], native: true)
        #expect(reason == "no allowed callback uses the scheme com.evil.app")
        #expect(nearest != nil)
    }

    @Test func hostDiffers() {
        let (reason, nearest) = refusal("https://evil.example.com/callback", ["https://zzz.other.org/x", cb])
        #expect(reason == "host differs from the nearest entry https://app.example.com/callback (evil.example.com vs app.example.com)")
        #expect(nearest == cb)
    }

    @Test func pathDiffers() {
        let (reason, nearest) = refusal("https://app.example.com/callbakc", [cb, "https://app.example.com/logout"])
        #expect(reason == "path differs from https://app.example.com/callback at character 8 (\"/callbakc\" vs \"/callback\")")
        #expect(nearest == cb)
    }

    @Test func queryDiffers() {
        let (reason, _) = refusal(cb + "?foo=bar", [cb])
        #expect(reason.hasPrefix("query differs from \(cb)"))
    }

    @Test func wildcardLabels() {
        let (reason, nearest) = refusal("https://a.b.example.com/cb", ["https://*.example.com/cb"])
        #expect(reason.hasPrefix("wildcard matches exactly one label but the host has two"))
        #expect(nearest == "https://*.example.com/cb")
    }

    @Test func fragment() {
        #expect(refusal(cb + "#x", [cb]).0 == "fragments are never allowed")
    }

    @Test func loopbackNotNative() {
        #expect(refusal("http://127.0.0.1:5000/cb", ["http://127.0.0.1/cb"]).0 == "port differs (loopback any-port applies only to native apps)")
    }

    @Test func normalisation() {
        #expect(refusal(nfd, [nfc]).0.contains("Unicode normalisation"))
    }

    @Test func userinfo() {
        #expect(refusal("https://app.example.com@evil.example/callback", [cb]).0.contains("userinfo"))
    }

    @Test func hostCase() {
        #expect(refusal("https://APP.example.com/callback", [cb]).0.contains("letter case"))
    }

    @Test func noEntries() {
        #expect(refusal(cb, []) == ("no allowed callback is registered for this application", nil))
    }

    @Test func nearestPrefersSameHost() {
        // Edit distance alone would pick the evil-looking one; same scheme+host wins.
        let (_, nearest) = refusal("https://app.example.com/c", ["https://app.example.com/a-much-longer-path", "https://apx.example.com/c"])
        #expect(nearest == "https://app.example.com/a-much-longer-path")
    }
}
