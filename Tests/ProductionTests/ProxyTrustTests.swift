import HTTP
import Logging
@testable import Server
import Settings
import Testing

/// Proxy trust tables: CIDR matching, the rightmost-untrusted X-Forwarded-For walk, RFC 7239 parsing (J02, G06).
@Suite struct ProxyTrustTests {
    static func list(_ text: String) throws -> TrustedProxyList { try TrustedProxyList.parse(text).get() }

    @Test(arguments: [
        ("10.0.0.0/8", "10.1.2.3", true), ("10.0.0.0/8", "11.0.0.1", false),
        ("192.168.1.0/24", "192.168.1.255", true), ("192.168.1.0/24", "192.168.2.0", false),
        ("127.0.0.1", "127.0.0.1", true), ("127.0.0.1", "127.0.0.2", false), ("127.0.0.1/32", "127.0.0.1", true),
        ("0.0.0.0/0", "203.0.113.9", true), ("0.0.0.0/0", "2001:db8::1", false),
        ("172.16.0.0/12", "172.31.255.255", true), ("172.16.0.0/12", "172.32.0.0", false),
        ("::1", "::1", true), ("::1", "::2", false), ("2001:db8::/32", "2001:db8:ffff::1", true),
        ("2001:db8::/32", "2001:db9::1", false), ("fd00::/8", "fdab::1", true), ("::/0", "10.0.0.1", false),
        // IPv4-mapped IPv6 peers (dual-stack sockets) match IPv4 ranges.
        ("127.0.0.0/8", "::ffff:127.0.0.1", true), ("10.0.0.0/8", "::ffff:10.9.8.7", true), ("10.0.0.0/8", "::ffff:11.0.0.1", false),
        ("2001:db8::/126", "2001:db8::3", true), ("2001:db8::/126", "2001:db8::4", false),
    ])
    func cidrMatching(range: String, address: String, expected: Bool) throws {
        let list = try Self.list(range)
        let parsed = try #require(IPAddress(address))
        #expect(list.contains(parsed) == expected, "\(address) in \(range)")
    }

    @Test(arguments: ["10.0.0.1/8", "300.1.1.1", "10.0.0.0/33", "2001:db8::/129", "::1/-1", "example.com", "10.0.0.0/", "1.2.3.4/08x",
                      "fe80::1%eth0", "unixx", "10.0.0.0/8;"])
    func invalidEntriesAreConfigErrors(text: String) {
        #expect(throws: ParseFailure.self) { try TrustedProxyList.parse(text).get() }
    }

    @Test func listParsingAcceptsSpacesUnixAndMixedFamilies() throws {
        let list = try Self.list(" 127.0.0.1 , ::1,10.0.0.0/8, unix ")
        #expect(list.unixSockets)
        #expect(list.networks.count == 3)
        #expect(list.description == "127.0.0.1,::1,10.0.0.0/8,unix")
        #expect(try Self.list("").isEmpty)
        #expect(TrustedProxyList.none.isEmpty)
    }

    struct Case: Sendable, CustomStringConvertible {
        var trusted: String
        var peer: PeerAddress
        var headers: [(String, String)]
        var expected: String
        var description: String { "\(trusted) \(peer) \(headers) → \(expected)" }
    }

    static let cases: [Case] = [
        // Untrusted peer: forged headers change nothing (J02, G06).
        Case(trusted: "", peer: .ip("127.0.0.1", port: 1), headers: [("X-Forwarded-For", "1.2.3.4")], expected: "127.0.0.1"),
        Case(trusted: "10.0.0.0/8", peer: .ip("203.0.113.5", port: 1), headers: [("X-Forwarded-For", "10.0.0.1")], expected: "203.0.113.5"),
        Case(trusted: "10.0.0.0/8", peer: .ip("203.0.113.5", port: 1), headers: [("Forwarded", "for=1.2.3.4")], expected: "203.0.113.5"),
        Case(trusted: "", peer: .unix, headers: [("X-Forwarded-For", "1.2.3.4")], expected: "unix"),
        Case(trusted: "127.0.0.1", peer: .unix, headers: [("X-Forwarded-For", "1.2.3.4")], expected: "unix"),
        // Trusted peer: rightmost untrusted hop.
        Case(trusted: "127.0.0.1", peer: .ip("127.0.0.1", port: 1), headers: [("X-Forwarded-For", "198.51.100.7")], expected: "198.51.100.7"),
        Case(trusted: "127.0.0.1", peer: .ip("127.0.0.1", port: 1), headers: [("X-Forwarded-For", "1.2.3.4, 198.51.100.7")], expected: "198.51.100.7"),
        Case(trusted: "unix", peer: .unix, headers: [("X-Forwarded-For", "1.2.3.4, 127.0.0.1")], expected: "127.0.0.1"),
        Case(trusted: "10.0.0.0/8,127.0.0.1", peer: .ip("127.0.0.1", port: 1),
             headers: [("X-Forwarded-For", "6.6.6.6, 198.51.100.7, 10.0.0.2, 10.0.0.3")], expected: "198.51.100.7"),
        Case(trusted: "10.0.0.0/8", peer: .ip("10.0.0.9", port: 1),
             headers: [("X-Forwarded-For", "6.6.6.6"), ("X-Forwarded-For", "198.51.100.7, 10.0.0.3")], expected: "198.51.100.7"),
        // Every hop trusted: the leftmost.
        Case(trusted: "10.0.0.0/8", peer: .ip("10.0.0.9", port: 1), headers: [("X-Forwarded-For", "10.0.0.1, 10.0.0.2")], expected: "10.0.0.1"),
        // No forwarded header from a trusted proxy: the proxy itself.
        Case(trusted: "unix", peer: .unix, headers: [], expected: "unix"),
        Case(trusted: "127.0.0.1", peer: .ip("127.0.0.1", port: 1), headers: [], expected: "127.0.0.1"),
        // Garbage where the client should be: stop at the last address we can vouch for.
        Case(trusted: "127.0.0.1", peer: .ip("127.0.0.1", port: 1), headers: [("X-Forwarded-For", "1.2.3.4, <script>")], expected: "127.0.0.1"),
        Case(trusted: "10.0.0.0/8", peer: .ip("10.0.0.9", port: 1), headers: [("X-Forwarded-For", "unknown, 10.0.0.1")], expected: "10.0.0.1"),
        Case(trusted: "127.0.0.1", peer: .ip("127.0.0.1", port: 1), headers: [("X-Forwarded-For", "")], expected: "127.0.0.1"),
        // Ports and IPv6 in X-Forwarded-For.
        Case(trusted: "127.0.0.1", peer: .ip("127.0.0.1", port: 1), headers: [("X-Forwarded-For", "198.51.100.7:4711")], expected: "198.51.100.7"),
        Case(trusted: "127.0.0.1", peer: .ip("127.0.0.1", port: 1), headers: [("X-Forwarded-For", "2001:db8::1")], expected: "2001:db8::1"),
        Case(trusted: "127.0.0.1", peer: .ip("127.0.0.1", port: 1), headers: [("X-Forwarded-For", "[2001:db8::1]:80")], expected: "2001:db8::1"),
        Case(trusted: "127.0.0.1", peer: .ip("127.0.0.1", port: 1), headers: [("X-Forwarded-For", "::ffff:198.51.100.7")], expected: "198.51.100.7"),
        // A mapped peer address is trusted through its IPv4 range.
        Case(trusted: "127.0.0.0/8", peer: .ip("::ffff:127.0.0.1", port: 1), headers: [("X-Forwarded-For", "198.51.100.7")], expected: "198.51.100.7"),
        Case(trusted: "::1", peer: .ip("::1", port: 1), headers: [("X-Forwarded-For", "198.51.100.7")], expected: "198.51.100.7"),
        // RFC 7239 Forwarded, used when there is no X-Forwarded-For.
        Case(trusted: "127.0.0.1", peer: .ip("127.0.0.1", port: 1), headers: [("Forwarded", "for=192.0.2.60;proto=https;by=203.0.113.43")], expected: "192.0.2.60"),
        Case(trusted: "127.0.0.1", peer: .ip("127.0.0.1", port: 1), headers: [("Forwarded", #"for="[2001:db8:cafe::17]:4711""#)], expected: "2001:db8:cafe::17"),
        Case(trusted: "127.0.0.1", peer: .ip("127.0.0.1", port: 1), headers: [("Forwarded", #"For="192.0.2.43:47011", for=198.51.100.17"#)], expected: "198.51.100.17"),
        Case(trusted: "127.0.0.1,198.51.100.17", peer: .ip("127.0.0.1", port: 1),
             headers: [("Forwarded", #"for=192.0.2.43, for=198.51.100.17;proto=https"#)], expected: "192.0.2.43"),
        Case(trusted: "127.0.0.1", peer: .ip("127.0.0.1", port: 1), headers: [("Forwarded", "for=_hidden")], expected: "127.0.0.1"),
        Case(trusted: "127.0.0.1", peer: .ip("127.0.0.1", port: 1), headers: [("Forwarded", "for=unknown, for=192.0.2.1")], expected: "192.0.2.1"),
        // X-Forwarded-For wins over a Forwarded header nginx passes through untouched.
        Case(trusted: "unix", peer: .unix, headers: [("Forwarded", "for=6.6.6.6"), ("X-Forwarded-For", "198.51.100.7")], expected: "198.51.100.7"),
    ]

    @Test(arguments: cases)
    func clientAddress(_ testCase: Case) throws {
        let list = try Self.list(testCase.trusted)
        let address = ProxyTrust.clientAddress(peer: testCase.peer, headers: HTTPHeaders(testCase.headers), list: list)
        #expect(address == testCase.expected)
    }

    /// G06: an attacker rotating X-Forwarded-For from an untrusted peer always gets the same key.
    @Test func rotatingForgedHeadersFromAnUntrustedPeerChangeNothing() throws {
        let trust = ProxyTrust(try Self.list("10.0.0.0/8"))
        let hook = trust.identityHook(selfCheck: nil)
        var seen = Set<String>()
        for index in 0..<50 {
            let headers = HTTPHeaders([("X-Forwarded-For", "10.0.0.\(index), 1.2.3.\(index)"), ("X-Request-Id", "forged-\(index)"),
                                       ("Forwarded", "for=9.9.9.\(index)")])
            let identity = hook(.ip("203.0.113.5", port: 40000 + index), headers)
            seen.insert(identity.clientAddress)
            #expect(identity.requestID == nil)
        }
        #expect(seen == ["203.0.113.5"])
    }

    @Test func requestIDsFromTrustedProxiesAreAcceptedOnlyWhenWellFormed() throws {
        let hook = ProxyTrust(try Self.list("unix")).identityHook(selfCheck: nil)
        func identify(_ value: String) -> String? { hook(.unix, HTTPHeaders([("X-Request-Id", value)])).requestID }
        #expect(identify("0f1e2d3c4b5a69788796a5b4c3d2e1f0") == "0f1e2d3c4b5a69788796a5b4c3d2e1f0")
        #expect(identify("abc.DEF_1-2") == "abc.DEF_1-2")
        #expect(identify(String(repeating: "a", count: 128)) != nil)
        #expect(identify(String(repeating: "a", count: 129)) == nil)
        #expect(identify("") == nil)
        #expect(identify("a b") == nil)
        #expect(identify("a\"b") == nil)
        #expect(identify("é") == nil)
        #expect(identify("a{b}") == nil)
    }

    @Test func reloadSwapsTheList() throws {
        let trust = ProxyTrust(.none)
        let headers = HTTPHeaders([("X-Forwarded-For", "198.51.100.7")])
        #expect(trust.identityHook(selfCheck: nil)(.ip("127.0.0.1", port: 1), headers).clientAddress == "127.0.0.1")
        trust.replace(with: try Self.list("127.0.0.1"))
        #expect(trust.identityHook(selfCheck: nil)(.ip("127.0.0.1", port: 1), headers).clientAddress == "198.51.100.7")
    }
}

/// The once-only self-check comparing forwarded scheme/host/port/prefix with the issuer.
@Suite struct ProxySelfCheckTests {
    func check(_ issuer: String) throws -> (ProxySelfCheck, LogSink) {
        let sink = LogSink.memory()
        return (ProxySelfCheck(issuer: try Issuer.parse(issuer).get(), logger: Logger(sink: sink)), sink)
    }

    @Test func matchingHeadersLogNothing() throws {
        let (check, sink) = try check("https://id.example.com/auth/")
        check.observe(peer: .unix, headers: HTTPHeaders([("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "ID.example.com"),
                                                         ("X-Forwarded-Port", "443"), ("X-Forwarded-Prefix", "/auth")]), trusted: true)
        check.observe(peer: .unix, headers: HTTPHeaders([("Forwarded", "for=1.2.3.4;proto=https;host=id.example.com")]), trusted: true)
        #expect(sink.lines.isEmpty)
        #expect(check.report.firstTrusted?["X-Forwarded-Proto"] == "https")
        #expect(check.report.mismatch == nil)
    }

    @Test(arguments: [
        ([("X-Forwarded-Proto", "http"), ("X-Forwarded-Host", "id.example.com")], "X-Forwarded-Proto http but issuer is https"),
        ([("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "evil.example")], "host evil.example"),
        ([("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "id.example.com:8443")], "issuer port is 443"),
        ([("X-Forwarded-Proto", "https"), ("X-Forwarded-Port", "80")], "port 80"),
        ([("X-Forwarded-Proto", "https"), ("X-Forwarded-Prefix", "/other")], "prefix /other"),
        ([("X-Forwarded-For", "1.2.3.4")], "no X-Forwarded-Proto"),
        ([("Forwarded", "for=1.2.3.4;proto=http")], "X-Forwarded-Proto http"),
    ])
    func mismatchesAreLoggedOnceWithTheFix(headers: [(String, String)], problem: String) throws {
        let (check, sink) = try check("https://id.example.com/")
        for _ in 0..<3 { check.observe(peer: .unix, headers: HTTPHeaders(headers), trusted: true) }
        let warnings = sink.lines.filter { $0.contains("\"proxy_mismatch\"") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains(problem) == true, "\(warnings)")
        #expect(warnings.first?.contains("\"fix\"") == true)
        #expect(check.report.mismatch?["problem"]?.contains(problem) == true)
    }

    @Test func directRequestsWithoutForwardedHeadersAreNotChecked() throws {
        let (check, sink) = try check("https://id.example.com/")
        check.observe(peer: .unix, headers: HTTPHeaders([("Accept", "*/*")]), trusted: true)
        #expect(sink.lines.isEmpty)
        check.observe(peer: .unix, headers: HTTPHeaders([("X-Forwarded-Proto", "http")]), trusted: true)
        #expect(sink.lines.count == 1)
    }

    @Test func theProtoFixNamesTheNginxDirective() throws {
        let (check, sink) = try check("https://id.example.com/")
        check.observe(peer: .unix, headers: HTTPHeaders([("X-Forwarded-Proto", "http")]), trusted: true)
        #expect(sink.lines.first?.contains("proxy_set_header X-Forwarded-Proto $scheme;") == true)
    }

    @Test func forwardedHeadersFromAnUntrustedPeerAreReportedOnce() throws {
        let (check, sink) = try check("https://id.example.com/")
        check.observe(peer: .ip("127.0.0.1", port: 1), headers: HTTPHeaders([("Accept", "*/*")]), trusted: false)
        #expect(sink.lines.isEmpty)
        for _ in 0..<3 {
            check.observe(peer: .ip("127.0.0.1", port: 1), headers: HTTPHeaders([("X-Forwarded-For", "1.2.3.4")]), trusted: false)
        }
        #expect(sink.lines.count == 1)
        #expect(sink.lines[0].contains("forwarded_headers_from_untrusted_peer"))
        #expect(sink.lines[0].contains("trusted_proxies"))
        #expect(sink.lines[0].contains("\"peer\":\"127.0.0.1\""))
        #expect(check.report.untrustedPeer == "127.0.0.1")
    }
}
