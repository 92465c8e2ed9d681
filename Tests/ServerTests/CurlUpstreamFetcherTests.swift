import Foundation
import OIDC
import Testing
import TestSupport
@testable import Server

/// The libcurl upstream fetcher against a real HTTP(S) server on loopback (`Tests/upstream/http_stub.py`).
@Suite struct CurlUpstreamFetcherTests {
    static func failure(_ body: () throws(UpstreamError) -> UpstreamResponse) -> String? {
        do {
            let response = try body()
            Issue.record("expected a failure, got status \(response.status)")
            return nil
        } catch {
            guard case .unreachable(let why) = error else { Issue.record("not .unreachable: \(error)"); return nil }
            return why
        }
    }

    @Test func getReturnsBodyStatusAndMaxAge() throws {
        let stub = try UpstreamHTTPStub()
        let response = try CurlUpstreamFetcher().get("http://127.0.0.1:\(stub.port)/jwks")
        #expect(response == UpstreamResponse(status: 200, body: Array(#"{"keys":[]}"#.utf8), maxAge: 120))
    }

    @Test func noCacheControlMeansNoMaxAge() throws {
        let stub = try UpstreamHTTPStub()
        #expect(try CurlUpstreamFetcher().get("http://localhost:\(stub.port)/no-cache-header").maxAge == nil)
    }

    @Test func getAsksForJSON() throws {
        let stub = try UpstreamHTTPStub()
        let body = try CurlUpstreamFetcher().get("http://127.0.0.1:\(stub.port)/headers").body
        let headers = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: String])
        #expect(headers["accept"] == "application/json")
        #expect(headers["user-agent"] == "Gatehouse")
    }

    /// An error status is an answer for the caller to judge (a token endpoint's `invalid_grant` JSON).
    @Test(arguments: [400, 401, 404, 500, 503]) func errorStatusesAreReturned(status: Int) throws {
        let stub = try UpstreamHTTPStub()
        let response = try CurlUpstreamFetcher().get("http://127.0.0.1:\(stub.port)/status/\(status)")
        #expect(response.status == status && response.body == Array(#"{"error":"x"}"#.utf8))
    }

    /// Redirects are not followed: they could lead to a URL `UpstreamURLRule` refuses.
    @Test func redirectsAreNotFollowed() throws {
        let stub = try UpstreamHTTPStub()
        let response = try CurlUpstreamFetcher().get("http://127.0.0.1:\(stub.port)/redirect")
        #expect(response.status == 302 && response.body.isEmpty)
    }

    @Test func aSlowProviderTimesOut() throws {
        let stub = try UpstreamHTTPStub()
        let fetcher = CurlUpstreamFetcher(.init(timeout: .milliseconds(800)))
        let started = Date()
        let why = Self.failure { () throws(UpstreamError) in try fetcher.get("http://127.0.0.1:\(stub.port)/slow") }
        #expect(why?.contains("/slow") == true)
        #expect(why?.lowercased().contains("timed out") == true || why?.lowercased().contains("timeout") == true)
        #expect(Date().timeIntervalSince(started) < 4)
    }

    @Test func anOversizedAnswerIsRefused() throws {
        let stub = try UpstreamHTTPStub()
        let fetcher = CurlUpstreamFetcher(.init(maximumBodySize: 1 << 20))
        let why = Self.failure { () throws(UpstreamError) in try fetcher.get("http://127.0.0.1:\(stub.port)/big") }
        #expect(why?.hasSuffix("the answer is larger than 1048576 bytes") == true)
    }

    @Test func aClosedPortIsUnreachable() throws {
        let stub = try UpstreamHTTPStub()
        let port = stub.port
        stub.stop()
        let why = Self.failure { () throws(UpstreamError) in try CurlUpstreamFetcher().get("http://127.0.0.1:\(port)/jwks") }
        #expect(why?.contains("127.0.0.1:\(port)") == true)
    }

    /// Refused before any connection is made (README "Upstream connections").
    @Test(arguments: [
        ("http://example.com/jwks", "plain http is allowed only for loopback hosts (127.0.0.1, [::1], localhost)"),
        ("http://10.0.0.1/jwks", "plain http is allowed only for loopback hosts (127.0.0.1, [::1], localhost)"),
        ("ftp://127.0.0.1/jwks", "must be https"),
        ("file:///etc/passwd", "not an absolute URL"),
        ("https://user:pw@example.com/jwks", "must not carry credentials"),
    ]) func urlsTheRuleRefuses(url: String, problem: String) {
        let why = Self.failure { () throws(UpstreamError) in try CurlUpstreamFetcher().get(url) }
        #expect(why == "\(url): \(problem)")
        let posted = Self.failure { () throws(UpstreamError) in try CurlUpstreamFetcher().postForm(url, fields: [("a", "b")], basic: nil) }
        #expect(posted == "\(url): \(problem)")
    }

    @Test func httpsWithTheProvidersCertificateTrusted() throws {
        let files = try TemporaryDirectory("cert")
        let certificate = try TestCertificate(in: files)
        let stub = try UpstreamHTTPStub(certificate: certificate)
        let response = try CurlUpstreamFetcher(.init(caFile: certificate.certificate)).get("https://localhost:\(stub.port)/jwks")
        #expect(response.status == 200 && response.maxAge == 120)
    }

    /// Certificate verification is on: a self-signed certificate not in the trust store is refused.
    @Test func anUntrustedCertificateIsRefused() throws {
        let files = try TemporaryDirectory("cert")
        let stub = try UpstreamHTTPStub(certificate: try TestCertificate(in: files))
        let why = Self.failure { () throws(UpstreamError) in try CurlUpstreamFetcher().get("https://localhost:\(stub.port)/jwks") }
        #expect(why?.lowercased().contains("certificate") == true)
    }

    @Test func postFormSendsAnEncodedBodyAndBasicCredentials() throws {
        let stub = try UpstreamHTTPStub()
        let response = try CurlUpstreamFetcher().postForm("http://127.0.0.1:\(stub.port)/token",
            fields: [("grant_type", "authorization_code"), ("code", "a b&c=d"), ("redirect_uri", "https://id.example.com/login/callback")],
            basic: (user: "client:1", password: "sécret"))
        #expect(response.status == 200)
        let echo = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(echo["path"] as? String == "/token")
        #expect(echo["content_type"] as? String == "application/x-www-form-urlencoded")
        #expect(echo["body"] as? String == "grant_type=authorization_code&code=a%20b%26c%3Dd&redirect_uri=https%3A%2F%2Fid.example.com%2Flogin%2Fcallback")
        // RFC 6749 §2.3.1: each part form-encoded, then base64 of "id:secret".
        #expect(echo["authorization"] as? String == "Basic " + Data("client%3A1:s%C3%A9cret".utf8).base64EncodedString())
    }

    @Test func postFormWithoutBasicSendsNoAuthorization() throws {
        let stub = try UpstreamHTTPStub()
        let response = try CurlUpstreamFetcher().postForm("http://127.0.0.1:\(stub.port)/token",
            fields: [("client_id", "app"), ("client_secret", "s3")], basic: nil)
        let echo = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(echo["authorization"] is NSNull)
        #expect(echo["body"] as? String == "client_id=app&client_secret=s3")
    }

    @Test(arguments: [
        ("public, max-age=3600", 3600),
        ("max-age=0", 0),
        ("MAX-AGE = 60", 60),
        ("max-age=\"90\"", 90),
        ("private, no-cache", 0),
        ("no-store, max-age=600", 0),
        ("public", nil),
        ("max-age=", nil),
        ("max-age=-5", nil),
        ("max-age=12x", nil),
        ("s-maxage=30", nil),
    ] as [(String, Int?)]) func cacheControlMaxAge(value: String, expected: Int?) {
        #expect(CurlUpstreamFetcher.maxAge(cacheControl: value) == expected)
    }
}
