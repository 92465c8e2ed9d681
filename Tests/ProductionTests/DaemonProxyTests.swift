import Foundation
import Testing
import TestSupport

/// The real `idp` behind (and not behind) a proxy: client address, request ids, the self-check (J02, J03, J04, G06).
@Suite struct DaemonProxyTests {
    static let forged = ["-H", "X-Forwarded-For: 1.2.3.4", "-H", "X-Forwarded-Proto: http", "-H", "X-Forwarded-Host: evil.example",
                         "-H", "X-Request-Id: forged-id"]

    /// J02/G06/J04: without trusted_proxies, forged forwarded headers change nothing and are reported once.
    @Test func forgedForwardedHeadersFromAnUntrustedPeerChangeNothing() throws {
        let daemon = try Daemon(environment: ["IDP_ISSUER": "https://id.example.com/"])
        defer { daemon.stop() }
        let url = daemon.baseURL + "/.well-known/openid-configuration"
        let plain = try Curl.get(url)
        var forgedResponses: [Curl.Response] = []
        for index in 0..<3 {
            forgedResponses.append(try Curl.get(url, Self.forged + ["-H", "X-Forwarded-For: 9.9.9.\(index)", "-H", "Host: evil.example"]))
        }
        for response in forgedResponses {
            #expect(response.status == 200)
            #expect(response.body == plain.body)
            #expect(response.headers["x-request-id"] != "forged-id")
            #expect(response.headers["x-request-id"]?.count == 32)
        }
        #expect(eventually { daemon.events("access").count >= 4 })
        for line in daemon.events("access") {
            #expect(line["peer"] as? String == "127.0.0.1")
            #expect(line["proxy"] == nil)
        }
        let warnings = daemon.events("forwarded_headers_from_untrusted_peer")
        #expect(warnings.count == 1)
        #expect(warnings.first?["peer"] as? String == "127.0.0.1")
        #expect(warnings.first?["setting"] as? String == "trusted_proxies")
        #expect(daemon.events("proxy_mismatch").isEmpty)
    }

    /// J02: from a trusted proxy, the access log shows the forwarded client and X-Request-Id is echoed.
    @Test func aTrustedProxySuppliesTheClientAddressAndRequestID() throws {
        let daemon = try Daemon(environment: ["IDP_TRUSTED_PROXIES": "127.0.0.1/32", "IDP_ISSUER": "http://127.0.0.1/"])
        defer { daemon.stop() }
        let response = try Curl.get(daemon.baseURL + "/healthz", [
            "-H", "X-Forwarded-For: 6.6.6.6, 198.51.100.7", "-H", "X-Request-Id: nginx-req.42_a",
            "-H", "X-Forwarded-Proto: http", "-H", "X-Forwarded-Host: 127.0.0.1"])
        #expect(response.status == 200)
        #expect(response.headers["x-request-id"] == "nginx-req.42_a")
        let invalid = try Curl.get(daemon.baseURL + "/healthz", ["-H", "X-Request-Id: bad id!", "-H", "X-Forwarded-Proto: http"])
        #expect(invalid.headers["x-request-id"]?.count == 32)
        #expect(eventually { daemon.events("access").count >= 2 })
        let access = daemon.events("access")
        #expect(access.first?["peer"] as? String == "198.51.100.7")
        #expect(access.first?["proxy"] as? String == "127.0.0.1")
        #expect(access.first?["request_id"] as? String == "nginx-req.42_a")
        #expect(access.last?["peer"] as? String == "127.0.0.1")
        #expect(access.last?["proxy"] == nil)
        #expect(daemon.events("proxy_mismatch").isEmpty)
        #expect(daemon.events("forwarded_headers_from_untrusted_peer").isEmpty)
    }

    /// The self-check: a proxy forwarding http for an https issuer is logged once, with the headers seen and the fix.
    @Test func aProxyMismatchIsLoggedOnce() throws {
        let daemon = try Daemon(environment: ["IDP_TRUSTED_PROXIES": "127.0.0.1", "IDP_ISSUER": "https://id.example.com/"])
        defer { daemon.stop() }
        let url = daemon.baseURL + "/.well-known/openid-configuration"
        let plain = try Curl.get(url).body
        for _ in 0..<3 {
            let forged = try Curl.get(url, ["-H", "X-Forwarded-Proto: http", "-H", "X-Forwarded-Host: id.example.com"])
            #expect(forged.body == plain)  // The issuer still comes from configuration.
        }
        #expect(eventually { daemon.events("access").count >= 4 })
        let mismatches = daemon.events("proxy_mismatch")
        #expect(mismatches.count == 1)
        let line = try #require(mismatches.first)
        #expect(line["level"] as? String == "warning")
        #expect(line["x_forwarded_proto"] as? String == "http")
        #expect((line["problem"] as? String)?.contains("X-Forwarded-Proto http but issuer is https") == true)
        #expect((line["fix"] as? String)?.contains("proxy_set_header X-Forwarded-Proto $scheme;") == true)
    }

    /// J01 is a deployment property: the default listener is loopback only.
    @Test func theDefaultListenerIsLoopback() throws {
        let dir = try TemporaryDirectory("idp-j01")
        let result = try AdminProcess.run(["config", "check", "--json"], environment: [:], directory: dir.path)
        #expect(result.status == 0)
        #expect(result.stdout.contains("127.0.0.1:8080"))
    }
}
