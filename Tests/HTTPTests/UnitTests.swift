import Testing
@testable import HTTP
import Logging

@Suite struct FormCodecTests {
    @Test func decodesPlusAndPercentOnce() throws {
        let pairs = try FormCodec.decode("a=1+2&b=%2541&c&=x&&d=%C3%A9")
        #expect(pairs.map(\.0) == ["a", "b", "c", "", "d"])
        #expect(pairs.map(\.1) == ["1 2", "%41", "", "x", "é"])
    }

    @Test(arguments: ["a=%zz", "a=%4", "a=%", "%C3%28=1", "a=%C0%AF", "a=%ED%A0%80", "a=%FF"])
    func rejectsBadEncoding(_ text: String) {
        #expect(throws: FormCodec.DecodeError.self) { try FormCodec.decode(text) }
    }

    @Test func encodeRoundTrips() throws {
        let pairs = [("redirect_uri", "https://rp.example/cb?x=1&y=2"), ("scope", "openid email"), ("é", "+%")]
        let text = FormCodec.encode(pairs)
        #expect(text == "redirect_uri=https%3A%2F%2Frp.example%2Fcb%3Fx%3D1%26y%3D2&scope=openid+email&%C3%A9=%2B%25")
        let back = try FormCodec.decode(text)
        #expect(back.map(\.0) == pairs.map(\.0))
        #expect(back.map(\.1) == pairs.map(\.1))
    }

    @Test func queryItemsReturnNilOnBadEncoding() {
        #expect(HTTPRequest(target: "/x?a=1&b=two+words").queryItems?.map(\.1) == ["1", "two words"])
        #expect(HTTPRequest(target: "/x?a=%zz").queryItems == nil)
    }
}

@Suite struct HTTPHeadersTests {
    @Test func caseInsensitiveOrderedOperations() {
        var headers = HTTPHeaders([("Content-Type", "a"), ("X-A", "1")])
        headers.add("x-a", "2")
        #expect(headers["content-type"] == "a")
        #expect(headers.values("X-a") == ["1", "2"])
        headers.set("X-A", "3")
        #expect(headers.values("x-a") == ["3"])
        headers.remove("CONTENT-TYPE")
        #expect(headers["Content-Type"] == nil)
        #expect(Array(headers).map(\.0) == ["X-A"])
    }

    /// Names match ASCII case-insensitively and nothing else: not a prefix, not another length,
    /// and no Unicode case folding (`K` is not the Kelvin sign, `ß` not `ss`).
    @Test(arguments: [
        ("Content-Type", "content-type", true), ("X-A", "x-a", true), ("", "", true), ("ETag", "ETAG", true),
        ("Content-Type", "Content-Typ", false), ("Content-Type", "Content-Types", false), ("X-A", "X-B", false),
        ("X-A", "X_A", false), ("k", "\u{212A}", false), ("ß", "ss", false), ("Accept", "", false),
        ("Ä", "ä", false), ("Ä", "Ä", true),
    ])
    func namesCompareASCIICaseInsensitively(lhs: String, rhs: String, same: Bool) {
        #expect(HTTPHeaders.same(lhs, rhs) == same)
        #expect(HTTPHeaders.same(rhs, lhs) == same)
    }
}

@Suite struct ListenAddressTests {
    @Test func parsesForms() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:8080") == .tcp(host: "127.0.0.1", port: 8080))
        #expect(try ListenAddress(parsing: "[::1]:8080") == .tcp(host: "::1", port: 8080))
        #expect(try ListenAddress(parsing: "0.0.0.0:80") == .tcp(host: "0.0.0.0", port: 80))
        #expect(try ListenAddress(parsing: ":8080") == .tcp(host: "0.0.0.0", port: 8080))
        #expect(try ListenAddress(parsing: "unix:/run/idp.sock") == .unix(path: "/run/idp.sock"))
    }

    @Test(arguments: ["", "8080", "::1:8080", "[::1]8080", "1.2.3.4:", "1.2.3.4:65536", "1.2.3.4:+80", "unix:", "[]:80"])
    func rejectsBadForms(_ text: String) {
        #expect(throws: ListenAddress.ParseError.self) { try ListenAddress(parsing: text) }
    }
}

@Suite struct RouterTests {
    func router() -> Router {
        var router = Router(prefix: "/auth")
        router.add("GET", "/jwks", execution: .inline) { _ in .json(Array("{}".utf8)) }
        router.add("POST", "token") { request in .text("token \(request.body.count)") }
        return router
    }

    @Test func routesUnderPrefix() {
        let router = router()
        #expect(router.respond(to: HTTPRequest(target: "/auth/jwks")).status == 200)
        #expect(router.route(for: HTTPRequest(target: "/auth/jwks")).execution == .inline)
        #expect(router.route(for: HTTPRequest(method: "POST", target: "/auth/token")).execution == .worker)
        #expect(router.respond(to: HTTPRequest(target: "/jwks")).status == 404)
    }

    @Test func headUsesGetWithoutBody() {
        let response = router().respond(to: HTTPRequest(method: "HEAD", target: "/auth/jwks"))
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.headers["Content-Length"] == "2")
    }

    @Test func methodErrors() {
        let router = router()
        let wrong = router.respond(to: HTTPRequest(method: "DELETE", target: "/auth/token"))
        #expect(wrong.status == 405)
        #expect(wrong.headers["Allow"] == "POST")
        #expect(router.respond(to: HTTPRequest(method: "GET", target: "/auth/jwks")).headers["Allow"] == nil)
        #expect(router.respond(to: HTTPRequest(method: "TRACE", target: "/auth/jwks")).headers["Allow"] == "GET, HEAD")
        #expect(router.respond(to: HTTPRequest(method: "FROB", target: "/auth/jwks")).status == 501)
        #expect(!router.route(for: HTTPRequest(method: "FROB", target: "/auth/jwks")).wantsBody)
    }
}

@Suite struct ResponseEncoderTests {
    func serialize(_ response: HTTPResponse, head: Bool = false, close: Bool = false) -> String {
        var out: [UInt8] = []
        _ = ResponseEncoder.serialize(response, into: &out, isHead: head, requestID: "id", close: close, keepAliveHeader: false,
                                      date: Array("Sun, 06 Nov 1994 08:49:37 GMT".utf8))
        return String(decoding: out, as: UTF8.self)
    }

    @Test func serializesWithServerHeaders() {
        var response = HTTPResponse.text("hi", status: 201)
        response.headers.add("Content-Length", "999")  // Handler values for framing headers are ignored.
        #expect(serialize(response, close: true) == "HTTP/1.1 201 Created\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Type: text/plain; charset=utf-8"
            + "\r\nContent-Length: 2\r\nX-Request-Id: id\r\nConnection: close\r\n\r\nhi")
        #expect(serialize(HTTPResponse(status: 204)).contains("Content-Length") == false)
        #expect(serialize(.text("hello"), head: true).hasSuffix("Content-Length: 5\r\nX-Request-Id: id\r\n\r\n"))
    }

    @Test(arguments: [("X-A", "a\r\nb"), ("X-A", "a\nb"), ("X-A", "a\u{0}b"), ("X A", "v"), ("X-A\r\n", "v"), ("", "v")])
    func refusesHeaderSplitting(name: String, value: String) {
        var problems: [String] = []
        var response = HTTPResponse.text("x")
        response.headers.add(name, value)
        let prepared = ResponseEncoder.prepare(response, acceptEncoding: nil, gzipMinimumBytes: 1024) { problems.append($0) }
        #expect(prepared.status == 500)
        #expect(problems.count == 1)
    }

    @Test func acceptEncoding() {
        #expect(Gzip.accepted("gzip"))
        #expect(Gzip.accepted("deflate, gzip;q=0.5"))
        #expect(Gzip.accepted("*"))
        #expect(!Gzip.accepted("gzip;q=0"))
        #expect(!Gzip.accepted("gzip;q=0, *"))
        #expect(!Gzip.accepted("br"))
        #expect(!Gzip.accepted(nil))
        #expect(!Gzip.accepted("*;q=0"))
    }

    @Test func dateFormat() {
        #expect(HTTPDateCache.format(784111777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}
