import Foundation
import Testing
import TestSupport

/// Health, discovery and JWKS as served by the real `idp` binary.
@Suite struct DaemonEndpointTests {
    @Test func routesLiveUnderTheIssuersPathAndURLsComeFromTheIssuer() throws {
        let daemon = try Daemon(environment: ["IDP_ISSUER": "https://id.example.com/auth/"])
        defer { daemon.stop() }
        #expect(try Curl.get(daemon.baseURL + "/auth/healthz").status == 200)
        #expect(try Curl.get(daemon.baseURL + "/healthz").status == 404)
        let discovery = try Curl.get(daemon.baseURL + "/auth/.well-known/openid-configuration")
        #expect(discovery.status == 200)
        let metadata = try discovery.json()
        #expect(metadata["issuer"] as? String == "https://id.example.com/auth/")
        #expect(metadata["jwks_uri"] as? String == "https://id.example.com/auth/.well-known/jwks.json")
        #expect(metadata["authorization_endpoint"] as? String == "https://id.example.com/auth/authorize")
        #expect(metadata["token_endpoint"] as? String == "https://id.example.com/auth/oauth/token")
    }

    /// E09: the discovery document's required members and what it must never offer.
    @Test func discoveryListsWhatClientsNeedAndNeverOffersNone() throws {
        let daemon = try Daemon(environment: ["IDP_ISSUER": "https://id.example.com/"])
        defer { daemon.stop() }
        let response = try Curl.get(daemon.baseURL + "/.well-known/openid-configuration")
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["access-control-allow-origin"] == "*")
        let metadata = try response.json()
        #expect(metadata["response_types_supported"] as? [String] == ["code"])
        #expect(metadata["code_challenge_methods_supported"] as? [String] == ["S256"])
        #expect(metadata["id_token_signing_alg_values_supported"] as? [String] == ["RS256", "ES256"])
        #expect((metadata["scopes_supported"] as? [String])?.contains("openid") == true)
        #expect(metadata["authorization_response_iss_parameter_supported"] as? Bool == true)
        #expect(metadata["subject_types_supported"] as? [String] == ["public"])
        for (key, value) in metadata {
            if key.hasSuffix("_endpoint") || key == "jwks_uri" {
                #expect((value as? String)?.hasPrefix("https://id.example.com/") == true, "\(key)")
            }
        }
        for (key, value) in metadata where key.contains("alg_values") {
            #expect((value as? [String])?.contains("none") == false, "\(key) offers none")
        }
    }

    /// E10: neither Host nor X-Forwarded-* changes what the server emits.
    @Test func hostAndForwardedHeadersNeverChangeTheDocument() throws {
        let daemon = try Daemon(environment: ["IDP_ISSUER": "https://id.example.com/"])
        defer { daemon.stop() }
        let url = daemon.baseURL + "/.well-known/openid-configuration"
        let plain = try Curl.get(url).body
        let forged = try Curl.get(url, ["-H", "Host: evil.example", "-H", "X-Forwarded-Host: evil.example",
                                        "-H", "X-Forwarded-Proto: http", "-H", "Forwarded: host=evil.example;proto=http"])
        #expect(forged.status == 200)
        #expect(forged.body == plain)
        #expect(!forged.text.contains("evil.example"))
    }

    @Test func jwksIsCacheableWithAStrongETagAnd304() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let url = daemon.baseURL + "/.well-known/jwks.json"
        let first = try Curl.get(url)
        #expect(first.status == 200)
        let etag = try #require(first.headers["etag"])
        #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
        #expect(first.headers["cache-control"] == "public, max-age=300")
        #expect(first.headers["access-control-allow-origin"] == "*")
        for condition in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
            let cached = try Curl.get(url, ["-H", "If-None-Match: \(condition)"])
            #expect(cached.status == 304, "If-None-Match: \(condition)")
            #expect(cached.body.isEmpty)
            #expect(cached.headers["etag"] == etag)
        }
        #expect(try Curl.get(url, ["-H", "If-None-Match: \"stale\""]).status == 200)
        let head = try Curl.get(url, ["-I"])
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
    }

    /// E04: public members only, one RSA ≥ 2048 and one P-256 key, distinct kids.
    @Test func jwksPublishesOneActiveKeyPerAlgorithm() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let keys = try #require(try Curl.get(daemon.baseURL + "/.well-known/jwks.json").json()["keys"] as? [[String: String]])
        #expect(keys.map { $0["alg"] } == ["RS256", "ES256"])
        #expect(Set(keys.compactMap { $0["kid"] }).count == 2)
        for key in keys {
            #expect(key["use"] == "sig")
            #expect(Set(key.keys).isDisjoint(with: ["d", "p", "q", "dp", "dq", "qi"]))
        }
    }

    /// E05: a rotation by idp-admin reaches the running daemon within 5 s; the old key stays published.
    @Test func aRotationByIdpAdminIsServedWithinFiveSeconds() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let url = daemon.baseURL + "/.well-known/jwks.json"
        let before = try #require(try Curl.get(url).json()["keys"] as? [[String: String]])
        let oldKid = try #require(before.first { $0["alg"] == "RS256" }?["kid"])
        let admin = try AdminProcess.run(["keys", "rotate", "--alg", "RS256", "--json"], environment: [:], directory: daemon.directory.path)
        #expect(admin.status == 0, "\(admin.stderr)")
        let rotated = try #require(try JSONSerialization.jsonObject(with: Data(admin.stdout.utf8)) as? [String: String])
        #expect(rotated["alg"] == "RS256")
        #expect(rotated["status"] == "active")
        let newKid = try #require(rotated["kid"])

        let deadline = Date().addingTimeInterval(5)
        var kids: [String] = []
        repeat {
            kids = (try Curl.get(url).json()["keys"] as? [[String: String]])?.compactMap { $0["kid"] } ?? []
            if kids.contains(newKid) { break }
            Thread.sleep(forTimeInterval: 0.2)
        } while Date() < deadline
        #expect(kids.first == newKid)
        #expect(kids.contains(oldKid))
    }
}
