import Testing
@testable import HTTP

/// Feeds `raw` in one piece and returns the first event.
func parseOnce(_ raw: String, limits: ParserLimits = ParserLimits()) -> RequestParser.Event {
    var parser = RequestParser(limits: limits)
    parser.append(Array(raw.utf8))
    return parser.next()
}

func parseBytes(_ raw: [UInt8], limits: ParserLimits = ParserLimits()) -> RequestParser.Event {
    var parser = RequestParser(limits: limits)
    parser.append(raw)
    return parser.next()
}

func rejection(_ event: RequestParser.Event) -> Int? {
    if case .failed(let error) = event { return error.status }
    return nil
}

struct RejectionCase: CustomTestStringConvertible, Sendable {
    let row: String
    let name: String
    let raw: String
    let status: Int
    var testDescription: String { "\(row) \(name)" }
}

let smallLimits: ParserLimits = {
    var limits = ParserLimits()
    limits.maxBodyBytes = 100
    return limits
}()

/// A chunked request up to its last chunk, so a row can append trailers.
let chunkedEnd = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n"

/// Every rejection the parser must make, with the status it must answer.
let rejectionCases: [RejectionCase] = [
    // I01
    .init(row: "I01", name: "CL and TE", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", status: 400),
    .init(row: "I01", name: "TE and CL", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", status: 400),
    // I02
    .init(row: "I02", name: "two differing CL", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", status: 400),
    .init(row: "I02", name: "two equal CL", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", status: 400),
    .init(row: "I02", name: "CL list", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 6\r\n\r\n", status: 400),
    .init(row: "I02", name: "CL same-value list", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\n", status: 400),
    // I03
    .init(row: "I03", name: "CL +5", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n", status: 400),
    .init(row: "I03", name: "CL -1", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", status: 400),
    .init(row: "I03", name: "CL 0x10", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x10\r\n\r\n", status: 400),
    .init(row: "I03", name: "CL 5.0", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5.0\r\n\r\n", status: 400),
    .init(row: "I03", name: "CL 30 digits", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 123456789012345678901234567890\r\n\r\n", status: 400),
    .init(row: "I03", name: "CL 19 digits", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000000000000000\r\n\r\n", status: 400),
    .init(row: "I03", name: "CL empty", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \r\n\r\n", status: 400),
    .init(row: "I03", name: "CL inner space", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1 2\r\n\r\n", status: 400),
    // I04
    .init(row: "I04", name: "TE gzip alone", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", status: 501),
    .init(row: "I04", name: "TE gzip, chunked", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", status: 501),
    .init(row: "I04", name: "TE chunked, chunked", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", status: 400),
    .init(row: "I04", name: "TE chunked twice as fields", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", status: 400),
    .init(row: "I04", name: "TE xchunked", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n", status: 400),
    .init(row: "I04", name: "TE chunked, gzip", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", status: 501),
    .init(row: "I04", name: "TE empty element", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: ,chunked\r\n\r\n", status: 400),
    // RFC 9112 section 6.1: Transfer-Encoding in HTTP/1.0 is faulty framing, whatever the coding.
    .init(row: "I04", name: "TE chunked in HTTP/1.0", raw: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400),
    .init(row: "I04", name: "TE gzip in HTTP/1.0", raw: "POST / HTTP/1.0\r\nTransfer-Encoding: gzip\r\n\r\n", status: 400),
    // I05
    .init(row: "I05", name: "chunk size overflow", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFF\r\n", status: 400),
    .init(row: "I05", name: "chunk size 16 F", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFF\r\n", status: 400),
    .init(row: "I05", name: "chunk size non-hex", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", status: 400),
    .init(row: "I05", name: "chunk size empty", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", status: 400),
    .init(row: "I05", name: "chunk size signed", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", status: 400),
    .init(row: "I05", name: "missing CRLF after data", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n", status: 400),
    .init(row: "I05", name: "LF only after data", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\n0\r\n\r\n", status: 400),
    .init(row: "I05", name: "10 KB chunk extension", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;x=" + String(repeating: "a", count: 10_000) + "\r\nabc\r\n0\r\n\r\n", status: 400),
    .init(row: "I05", name: "bare LF in chunk line", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n", status: 400),
    // Trailer fields follow the header field syntax (RFC 9112 section 7.1.2), even though they are ignored.
    .init(row: "I05", name: "NUL in trailer", raw: chunkedEnd + "X-T: a\u{0}b\r\n\r\n", status: 400),
    .init(row: "I05", name: "bare CR in trailer", raw: chunkedEnd + "X-T: a\rb\r\n\r\n", status: 400),
    .init(row: "I05", name: "trailer without colon", raw: chunkedEnd + "XTrailer\r\n\r\n", status: 400),
    .init(row: "I05", name: "trailer obs-fold", raw: chunkedEnd + "X-T: a\r\n b\r\n\r\n", status: 400),
    .init(row: "I05", name: "non-token trailer name", raw: chunkedEnd + "X(T): a\r\n\r\n", status: 400),
    .init(row: "I05", name: "trailers over 16 KiB", raw: chunkedEnd + String(repeating: "X-Fill: " + String(repeating: "b", count: 190) + "\r\n", count: 90) + "\r\n", status: 400),
    // I06
    .init(row: "I06", name: "space before colon", raw: "GET / HTTP/1.1\r\nHost: a\r\nX-Test : 1\r\n\r\n", status: 400),
    .init(row: "I06", name: "space before colon on CL", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length : 5\r\n\r\nhello", status: 400),
    .init(row: "I06", name: "obs-fold SP", raw: "GET / HTTP/1.1\r\nHost: a\r\nX-Test: 1\r\n 2\r\n\r\n", status: 400),
    .init(row: "I06", name: "obs-fold HTAB", raw: "GET / HTTP/1.1\r\nHost: a\r\nX-Test: 1\r\n\t2\r\n\r\n", status: 400),
    .init(row: "I06", name: "non-token name", raw: "GET / HTTP/1.1\r\nHost: a\r\nX(Test): 1\r\n\r\n", status: 400),
    .init(row: "I06", name: "empty name", raw: "GET / HTTP/1.1\r\nHost: a\r\n: 1\r\n\r\n", status: 400),
    .init(row: "I06", name: "no colon", raw: "GET / HTTP/1.1\r\nHost: a\r\nXTest\r\n\r\n", status: 400),
    // I07
    .init(row: "I07", name: "no Host in 1.1", raw: "GET / HTTP/1.1\r\n\r\n", status: 400),
    .init(row: "I07", name: "two Host", raw: "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400),
    .init(row: "I07", name: "two Host in 1.0", raw: "GET / HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n", status: 400),
    // I08
    .init(row: "I08", name: "bare CR in header", raw: "GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n", status: 400),
    .init(row: "I08", name: "bare CR in request line", raw: "GET /\r HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I08", name: "bare LF line ending", raw: "GET / HTTP/1.1\nHost: a\n\n", status: 400),
    .init(row: "I08", name: "bare LF in header", raw: "GET / HTTP/1.1\r\nHost: a\nX: 1\r\n\r\n", status: 400),
    .init(row: "I08", name: "NUL in header value", raw: "GET / HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n", status: 400),
    .init(row: "I08", name: "NUL in request line", raw: "GET /a\u{0}b HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I08", name: "CTL in header value", raw: "GET / HTTP/1.1\r\nHost: a\r\nX: a\u{1}b\r\n\r\n", status: 400),
    .init(row: "I08", name: "DEL in header value", raw: "GET / HTTP/1.1\r\nHost: a\r\nX: a\u{7F}b\r\n\r\n", status: 400),
    .init(row: "I08", name: "CTL in method", raw: "G\u{1}ET / HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I08", name: "tab in request line", raw: "GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I08", name: "double space in request line", raw: "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    // I09
    .init(row: "I09", name: "request line over 8 KiB", raw: "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: a\r\n\r\n", status: 414),
    .init(row: "I09", name: "headers over 16 KiB", raw: "GET / HTTP/1.1\r\nHost: a\r\n" + String(repeating: "X-Fill: " + String(repeating: "b", count: 190) + "\r\n", count: 90) + "\r\n", status: 431),
    .init(row: "I09", name: "101 header fields", raw: "GET / HTTP/1.1\r\nHost: a\r\n" + (0..<100).map { "X-\($0): 1\r\n" }.joined() + "\r\n", status: 431),
    .init(row: "I09", name: "CL over body limit", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n", status: 413),
    // I18
    .init(row: "I18", name: "HTTP/1.2", raw: "GET / HTTP/1.2\r\nHost: a\r\n\r\n", status: 505),
    .init(row: "I18", name: "HTTP/2.0", raw: "GET / HTTP/2.0\r\nHost: a\r\n\r\n", status: 505),
    .init(row: "I18", name: "HTTP/0.9 style", raw: "GET /\r\n\r\n", status: 400),
    .init(row: "I18", name: "h2 preface", raw: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", status: 505),
    .init(row: "I18", name: "lowercase version", raw: "GET / http/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I18", name: "HTTP/10.0", raw: "GET / HTTP/10.0\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I18", name: "invalid method token", raw: "GE(T / HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I18", name: "CONNECT authority form", raw: "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n", status: 501),
    .init(row: "I18", name: "asterisk outside OPTIONS", raw: "GET * HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I18", name: "Expect other than 100-continue", raw: "POST / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\nContent-Length: 1\r\n\r\nx", status: 417),
    // I19
    .init(row: "I19", name: "%zz", raw: "GET /a%zz HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I19", name: "%4", raw: "GET /a%4 HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I19", name: "trailing %", raw: "GET /a% HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I19", name: "%00", raw: "GET /a%00b HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I19", name: "/..%2f", raw: "GET /..%2fetc HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I19", name: "/a/../b", raw: "GET /a/../b HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I19", name: "%2e%2e", raw: "GET /%2e%2e/x HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I19", name: "fragment", raw: "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I19", name: "raw UTF-8 in target", raw: "GET /caf\u{E9} HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    // I20
    .init(row: "I20", name: "%C3%28", raw: "GET /%C3%28 HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I20", name: "overlong %C0%AF", raw: "GET /%C0%AF HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I20", name: "surrogate %ED%A0%80", raw: "GET /%ED%A0%80 HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I20", name: "lone continuation %80", raw: "GET /%80 HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I20", name: "%FF", raw: "GET /%FF HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    // I21
    .init(row: "I21", name: "absolute-form", raw: "GET http://evil.example/x HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(row: "I21", name: "scheme-relative", raw: "GET //evil.example/x HTTP/1.1\r\nHost: a\r\n\r\n", status: 0),
    .init(row: "I21", name: "target without slash", raw: "GET x HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
]

@Test("parser rejects", arguments: rejectionCases.filter { $0.status != 0 })
func parserRejects(_ testCase: RejectionCase) {
    #expect(rejection(parseOnce(testCase.raw)) == testCase.status)
}

@Test("parser rejects when fed one byte at a time", arguments: rejectionCases.filter { $0.status != 0 })
func parserRejectsBytewise(_ testCase: RejectionCase) {
    var parser = RequestParser()
    var result: Int?
    for byte in Array(testCase.raw.utf8) {
        parser.append([byte])
        if case .failed(let error) = parser.next() {
            result = error.status
            break
        }
    }
    #expect(result == testCase.status)
}

@Test func chunkedBodyOverLimitFailsAsItAccumulates() {
    var parser = RequestParser(limits: smallLimits)
    parser.append(Array("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
    #expect(rejection(parser.next()) == nil)
    parser.append(Array(("40\r\n" + String(repeating: "a", count: 64) + "\r\n").utf8))
    #expect(rejection(parser.next()) == nil)
    parser.append(Array("40\r\n".utf8))  // 128 > 100: refused before the data arrives.
    #expect(rejection(parser.next()) == 413)
}

@Test func failedParserStaysFailed() {
    var parser = RequestParser()
    parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
    #expect(rejection(parser.next()) == 400)
    #expect(rejection(parser.next()) == 400)
}

// MARK: Good shapes

func parsed(_ event: RequestParser.Event) -> (RequestHead, [UInt8])? {
    if case .request(let head, let body) = event { return (head, body) }
    return nil
}

@Test func parsesSimpleGet() throws {
    let (head, body) = try #require(parsed(parseOnce("GET /a/b?x=1&y=%20 HTTP/1.1\r\nHost: example\r\nAccept: */*\r\n\r\n")))
    #expect(head.method == "GET")
    #expect(head.target == "/a/b?x=1&y=%20")
    #expect(head.path == "/a/b")
    #expect(head.rawPath == "/a/b")
    #expect(head.query == "x=1&y=%20")
    #expect(head.version == .http1_1)
    #expect(head.headers["host"] == "example")
    #expect(head.keepAlive)
    #expect(body.isEmpty)
}

@Test func decodesPathOnce() throws {
    let (head, _) = try #require(parsed(parseOnce("GET /a%252Fb/%C3%A9 HTTP/1.1\r\nHost: a\r\n\r\n")))
    #expect(head.path == "/a%2Fb/é")
    #expect(head.rawPath == "/a%252Fb/%C3%A9")
}

@Test func parsesContentLengthBody() throws {
    let (head, body) = try #require(parsed(parseOnce("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello")))
    #expect(head.method == "POST")
    #expect(body == Array("hello".utf8))
}

@Test func parsesChunkedBodyWithExtensionsAndTrailers() throws {
    let raw = "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: yes\r\n\r\n"
    let (_, body) = try #require(parsed(parseOnce(raw)))
    #expect(body == Array("hello world".utf8))
}

@Test func parsesChunkedBodyFedBytewise() throws {
    let raw = Array("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\na\r\n0123456789\r\n0\r\n\r\nGET /next HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
    var parser = RequestParser()
    var bodies: [[UInt8]] = []
    var paths: [String] = []
    for byte in raw {
        parser.append([byte])
        while case .request(let head, let body) = parser.next() {
            bodies.append(body)
            paths.append(head.path)
        }
    }
    #expect(paths == ["/x", "/next"])
    #expect(bodies == [Array("0123456789".utf8), []])
}

@Test func pipelinedRequestsComeOutInOrder() {
    var parser = RequestParser()
    parser.append(Array((1...10).map { "GET /r\($0) HTTP/1.1\r\nHost: a\r\n\r\n" }.joined().utf8))
    var paths: [String] = []
    while case .request(let head, _) = parser.next() { paths.append(head.path) }
    #expect(paths == (1...10).map { "/r\($0)" })
}

@Test func http10WithoutHostIsAccepted() throws {
    let (head, _) = try #require(parsed(parseOnce("GET / HTTP/1.0\r\n\r\n")))
    #expect(head.version == .http1_0)
    #expect(!head.keepAlive)
    let (kept, _) = try #require(parsed(parseOnce("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")))
    #expect(kept.keepAlive)
}

@Test func connectionCloseDisablesKeepAlive() throws {
    let (head, _) = try #require(parsed(parseOnce("GET / HTTP/1.1\r\nHost: a\r\nConnection: Close\r\n\r\n")))
    #expect(!head.keepAlive)
}

@Test func expectContinueIsReportedWhileBodyPending() throws {
    var parser = RequestParser()
    parser.append(Array("POST /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n".utf8))
    guard case .needMore = parser.next() else { Issue.record("expected needMore"); return }
    #expect(parser.pendingHead?.expectContinue == true)
    #expect(parser.phase == .body)
    parser.append(Array("abc".utf8))
    let (_, body) = try #require(parsed(parser.next()))
    #expect(body == Array("abc".utf8))
}

@Test func asteriskForOptionsAndLeadingCRLFAndOWS() throws {
    let (head, _) = try #require(parsed(parseOnce("\r\nOPTIONS * HTTP/1.1\r\nHost: a\r\nX-Pad: \t v \t\r\n\r\n")))
    #expect(head.path == "*")
    #expect(head.headers["x-pad"] == "v")
}

@Test func unknownAndTraceMethodsParse() throws {
    #expect(parsed(parseOnce("TRACE / HTTP/1.1\r\nHost: a\r\n\r\n"))?.0.method == "TRACE")
    #expect(parsed(parseOnce("BREW /pot HTTP/1.1\r\nHost: a\r\n\r\n"))?.0.method == "BREW")
    #expect(parsed(parseOnce("GET //evil.example/x HTTP/1.1\r\nHost: a\r\n\r\n"))?.0.path == "//evil.example/x")
}

@Test func largeButAllowedShapes() throws {
    // Exactly 100 fields (Host + 99) and a 8,000-byte request line are fine.
    let headers = "Host: a\r\n" + (0..<99).map { "X-\($0): 1\r\n" }.joined()
    #expect(parsed(parseOnce("GET / HTTP/1.1\r\n" + headers + "\r\n")) != nil)
    #expect(parsed(parseOnce("GET /" + String(repeating: "a", count: 8000) + " HTTP/1.1\r\nHost: a\r\n\r\n")) != nil)
    let chunk = "FFFFF\r\n"  // Size fits, body limit decides.
    #expect(rejection(parseOnce("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk, limits: smallLimits)) == 413)
}

@Test func needsMoreOnPartialInput() {
    guard case .needMore = parseOnce("GET / HTTP/1.1\r\nHost: a\r\n") else { Issue.record("expected needMore"); return }
    var parser = RequestParser()
    #expect(parser.phase == .idle)
    parser.append(Array("G".utf8))
    _ = parser.next()
    #expect(parser.phase == .head)
}
