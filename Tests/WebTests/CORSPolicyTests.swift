import HTTP
import OIDC
import Testing
@testable import Server

@Suite struct WebOriginTests {
    @Test(arguments: [
        ("https://app.example.com", "https://app.example.com"),
        ("HTTPS://App.Example.COM", "https://app.example.com"),
        ("https://app.example.com:443", "https://app.example.com"),
        ("http://app.example.com:80", "http://app.example.com"),
        ("http://localhost:3000", "http://localhost:3000"),
        ("https://app.example.com:80", "https://app.example.com:80"),
        ("http://[::1]:8080", "http://[::1]:8080"),
        ("capacitor://localhost", "capacitor://localhost"),
    ])
    func normalizes(_ input: String, _ expected: String) {
        #expect(WebOrigin.normalize(input) == expected)
    }

    @Test(arguments: ["null", "", "app.example.com", "https://", "https://user@app.example.com", "https://app.example.com/",
                      "https://app.example.com:0", "https://app.example.com:65536", "https://app.example.com:", "https://*.example.com",
                      "https://a b.com", "https://app.example.com:44a", "1http://x"])
    func refusesMalformedOrigins(_ input: String) {
        #expect(WebOrigin.normalize(input) == nil)
    }

    @Test func configuredEntriesMayCarryAPath() {
        #expect(WebOrigin.normalize("https://app.example.com/some/path?q#f", allowPath: true) == "https://app.example.com")
    }
}

@Suite struct CORSPolicyTests {
    static let allowed = ["https://spa.example.com", "http://localhost:3000/", "https://other.example.com:8443"]

    @Test(arguments: [
        ("https://spa.example.com", true),
        ("https://spa.example.com:443", true),      // default port equals absent
        ("https://SPA.example.com", true),
        ("http://localhost:3000", true),
        ("https://other.example.com:8443", true),
        ("https://other.example.com", false),
        ("http://spa.example.com", false),          // scheme differs
        ("https://spa.example.com:8443", false),    // port differs
        ("https://evil-spa.example.com", false),
        ("https://spa.example.com.evil.test", false),
        ("null", false),
    ])
    func allowsExactOriginsOnly(_ origin: String, _ allowed: Bool) {
        let headers = CORSPolicy.headers(origin: origin, allowedOrigins: Self.allowed)
        if allowed {
            #expect(headers.count == 2)
            #expect(headers.first { $0.0 == "Access-Control-Allow-Origin" }?.1 == origin)
            #expect(headers.first { $0.0 == "Vary" }?.1 == "Origin")
        } else {
            #expect(headers.isEmpty)
        }
    }

    @Test func noHeadersWithoutOriginOrAllowList() {
        #expect(CORSPolicy.headers(origin: nil, allowedOrigins: Self.allowed).isEmpty)
        #expect(CORSPolicy.headers(origin: "https://spa.example.com", allowedOrigins: []).isEmpty)
        var response = HTTPResponse.json([])
        CORSPolicy.apply(to: &response, request: HTTPRequest(method: "POST", target: "/oauth/token"), allowedOrigins: Self.allowed)
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
        #expect(response.headers["Vary"] == nil)
    }

    @Test func applyEchoesAnAllowedOrigin() {
        var response = HTTPResponse.json([])
        let request = HTTPRequest(method: "POST", target: "/oauth/token",
                                  headers: HTTPHeaders([("Origin", "https://spa.example.com")]))
        CORSPolicy.apply(to: &response, request: request, allowedOrigins: Self.allowed)
        #expect(response.headers["Access-Control-Allow-Origin"] == "https://spa.example.com")
        #expect(response.headers["Vary"] == "Origin")
        #expect(response.headers["Access-Control-Allow-Credentials"] == nil)
    }

    @Test func publicDocumentsAllowAnyOriginWithoutCredentials() {
        var response = HTTPResponse.json([])
        CORSPolicy.applyPublic(to: &response)
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
        #expect(response.headers["Access-Control-Allow-Credentials"] == nil)
    }

    @Test func preflightForAnAllowedOrigin() {
        let request = HTTPRequest(method: "OPTIONS", target: "/oauth/token", headers: HTTPHeaders([
            ("Origin", "https://spa.example.com"), ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type, auth0-client"),
        ]))
        let response = CORSPolicy.preflight(request: request, allowedOrigins: Self.allowed)
        #expect(response.status == 204)
        #expect(response.body.isEmpty)
        #expect(response.headers["Access-Control-Allow-Origin"] == "https://spa.example.com")
        #expect(response.headers["Access-Control-Allow-Methods"] == "POST, GET, OPTIONS")
        #expect(response.headers["Access-Control-Allow-Headers"] == "Authorization, Content-Type, Auth0-Client, DPoP")
        #expect(response.headers["Access-Control-Max-Age"] == "600")
        #expect(response.headers["Vary"] == "Origin")
    }

    @Test(arguments: ["https://evil.example", "null", "https://spa.example.com/"])
    func preflightForAForeignOriginIsForbiddenWithoutCORSHeaders(_ origin: String) {
        let request = HTTPRequest(method: "OPTIONS", target: "/userinfo", headers: HTTPHeaders([("Origin", origin)]))
        let response = CORSPolicy.preflight(request: request, allowedOrigins: Self.allowed)
        #expect(response.status == 403)
        #expect(!response.headers.contains { $0.0.lowercased().hasPrefix("access-control-") })
    }

    @Test func plainOptionsWithoutOriginIsNotAPreflight() {
        let response = CORSPolicy.preflight(request: HTTPRequest(method: "OPTIONS", target: "/userinfo"), allowedOrigins: Self.allowed)
        #expect(response.status == 204)
        #expect(response.headers["Allow"] == "POST, GET, OPTIONS")
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
    }
}
