// Fuzzes RequestParser and HeadParser (Sources/HTTP): the request line, header fields, and
// Content-Length, chunked and trailer framing (RFC 9112 §2–7).
//
// Each input is parsed twice: appended whole, and appended in three pieces cut at points
// derived from the input's hash. The parser is a resumable state machine, so both feedings
// must yield exactly the same requests and the same failure; every request must also obey
// the framing and limit rules the parser enforces.

@testable import HTTP

/// Small limits, so inputs of a few KiB reach every limit check.
let limits: ParserLimits = {
    var limits = ParserLimits()
    limits.maxRequestLineBytes = 1024
    limits.maxHeaderBytes = 2048
    limits.maxHeaderCount = 16
    limits.maxBodyBytes = 4096
    limits.maxChunkLineBytes = 256
    return limits
}()

/// The statuses the parser may answer with (docs/architecture.md "Errors").
let parseStatuses: Set<Int> = [400, 413, 414, 417, 431, 501, 505]

/// A request compared byte for byte (String `==` would equate canonically equivalent text).
struct ParsedRequest: Equatable {
    var method, target, rawPath, path, query: [UInt8]
    var version: HTTPVersion
    var headers: [[UInt8]]
    var keepAlive, expectContinue: Bool
    var framing: RequestHead.Framing
    var body: [UInt8]

    init(_ head: RequestHead, body: [UInt8]) {
        method = Array(head.method.utf8)
        target = Array(head.target.utf8)
        rawPath = Array(head.rawPath.utf8)
        path = Array(head.path.utf8)
        query = Array(head.query.utf8)
        version = head.version
        headers = head.headers.flatMap { [Array($0.0.utf8), Array($0.1.utf8)] }
        keepAlive = head.keepAlive
        expectContinue = head.expectContinue
        framing = head.framing
        self.body = body
    }
}

struct Outcome: Equatable {
    var requests: [ParsedRequest] = []
    var failure: HTTPParseError?
    /// Only compared when parsing did not fail: a failure stops feeding early.
    var bufferedCount = 0
    var phase = RequestParser.Phase.idle
}

func fuzz(_ input: [UInt8]) {
    let whole = parse([input[...]], input: input)
    let hash = fnv1a(input)
    let first = Int(hash % UInt64(input.count + 1))
    let second = first + Int((hash >> 32) % UInt64(input.count - first + 1))
    let split = parse([input[..<first], input[first..<second], input[second...]], input: input)
    invariant(whole.requests == split.requests, "split at \(first), \(second) changed the requests")
    invariant(whole.failure == split.failure,
              "split at \(first), \(second) changed the failure: \(String(describing: whole.failure)) vs \(String(describing: split.failure))")
    if whole.failure == nil {
        invariant(whole.bufferedCount == split.bufferedCount && whole.phase == split.phase,
                  "split at \(first), \(second) left a different parser state")
    }
}

func parse(_ pieces: [ArraySlice<UInt8>], input: [UInt8]) -> Outcome {
    var parser = RequestParser(limits: limits)
    var outcome = Outcome()
    var bodyBytes = 0
    feeding: for piece in pieces {
        parser.append(Array(piece))
        while true {
            switch parser.next() {
            case .needMore:
                // A body in progress always has its head; nothing else does.
                invariant((parser.phase == .body) == (parser.pendingHead != nil), "pendingHead disagrees with phase \(parser.phase)")
                invariant(parser.bufferedCount <= input.count, "more bytes buffered than received")
                continue feeding
            case .failed(let error):
                invariant(parseStatuses.contains(error.status), "unexpected status \(error)")
                // After a failure framing cannot be trusted: the parser must stay failed.
                if case .failed(let again) = parser.next() {
                    invariant(again == error, "failure changed from \(error) to \(again)")
                } else {
                    invariant(false, "parser recovered after \(error)")
                }
                invariant(parser.pendingHead == nil, "a failed parser still has a pending head")
                outcome.failure = error
                break feeding
            case .request(let head, let body):
                check(head, body: body)
                bodyBytes += body.count
                invariant(bodyBytes <= input.count, "bodies total \(bodyBytes) bytes from \(input.count) bytes of input")
                outcome.requests.append(ParsedRequest(head, body: body))
            }
        }
    }
    outcome.bufferedCount = parser.bufferedCount
    outcome.phase = parser.phase
    return outcome
}

/// The rules every request the parser lets through must obey.
func check(_ head: RequestHead, body: [UInt8]) {
    invariant(body.count <= limits.maxBodyBytes, "body of \(body.count) bytes over the limit")
    switch head.framing {
    case .none: invariant(body.isEmpty, "a body without framing")
    case .length(let count): invariant(body.count == count, "Content-Length \(count) but \(body.count) body bytes")
    case .chunked: break
    }
    invariant(!head.method.isEmpty && head.method.utf8.allSatisfy(ASCII.isToken), "method \(describe(head.method.utf8))")
    invariant(head.version == .http1_1 || head.version == .http1_0, "version \(head.version)")

    // origin-form or "*" only, with the query split off exactly once.
    let path = Array(head.path.utf8)
    invariant(path.first == UInt8(ascii: "/") || path == [UInt8(ascii: "*")], "path \(describe(path))")
    invariant(!path.contains(0), "NUL in the decoded path \(describe(path))")
    for segment in path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
        invariant(segment != [UInt8(ascii: ".")] && segment != [UInt8(ascii: "."), UInt8(ascii: ".")],
                  "dot segment in the decoded path \(describe(path))")
    }
    let target = Array(head.target.utf8)
    let rawPath = Array(head.rawPath.utf8)
    invariant(target == rawPath || target == rawPath + [UInt8(ascii: "?")] + Array(head.query.utf8),
              "target \(describe(target)) is not rawPath ? query")
    invariant(!target.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "#") }), "target \(describe(target))")

    // Header fields: token names, no control bytes in values, and unambiguous framing (RFC 9112 §6.3).
    var hosts = 0
    var lengths = 0
    var codings = 0
    for (name, value) in head.headers {
        invariant(ASCII.isTokenString(name), "header name \(describe(name.utf8))")
        invariant(value.utf8.allSatisfy(ASCII.isFieldValue), "header value \(describe(value.utf8))")
        invariant(value.utf8.first != ASCII.space && value.utf8.last != ASCII.space, "untrimmed value \(describe(value.utf8))")
        switch name.lowercased() {
        case "host": hosts += 1
        case "content-length": lengths += 1
        case "transfer-encoding": codings += 1
        default: break
        }
    }
    invariant(hosts <= 1, "\(hosts) Host fields")
    invariant(head.version == .http1_0 || hosts == 1, "HTTP/1.1 without Host")
    invariant(lengths <= 1 && (lengths == 0 || codings == 0), "\(lengths) Content-Length and \(codings) Transfer-Encoding fields")
    invariant((codings > 0) == (head.framing == .chunked), "Transfer-Encoding without chunked framing")
    invariant(!head.expectContinue || head.version == .http1_1, "100-continue on HTTP/1.0")
}
