/// Turns the scanned lines of a request head into a `RequestHead`, applying every framing and syntax rule.
enum HeadParser {
    /// Transfer codings we recognise but do not implement (answered 501 rather than 400).
    private static let knownCodings: Set<String> = ["gzip", "x-gzip", "deflate", "compress", "x-compress", "identity", "br", "zstd"]

    static func parse(_ raw: UnsafeBufferPointer<UInt8>, lines: [Range<Int>], limits: ParserLimits) -> Result<RequestHead, HTTPParseError> {
        Result { () throws(HTTPParseError) in try head(raw, lines: lines, limits: limits) }
    }

    private static func head(_ raw: UnsafeBufferPointer<UInt8>, lines: [Range<Int>], limits: ParserLimits) throws(HTTPParseError) -> RequestHead {
        guard let first = lines.first else { throw HTTPParseError(400, "empty request") }
        let line = try requestLine(UnsafeBufferPointer(rebasing: raw[first]))
        let fields = try self.fields(raw, lines: lines.dropFirst(), limits: limits)
        if fields.hostCount > 1 { throw HTTPParseError(400, "duplicate Host") }
        if fields.hostCount == 0 && line.version == .http1_1 { throw HTTPParseError(400, "missing Host") }
        let framing = try self.framing(fields, version: line.version)
        var expectContinue = false
        if let expect = fields.expect {
            guard HTTPHeaders.same(expect, "100-continue") else { throw HTTPParseError(417, "unsupported expectation") }
            expectContinue = line.version == .http1_1
        }
        let target = try self.target(line.target, method: line.method)
        return RequestHead(method: line.method, target: String(decoding: line.target, as: UTF8.self), rawPath: target.rawPath,
                           path: target.path, query: target.query, version: line.version, headers: fields.headers,
                           keepAlive: HTTPRequest.keepAlive(version: line.version, headers: fields.headers),
                           expectContinue: expectContinue, framing: framing)
    }

    // MARK: Request line

    private struct RequestLine {
        var method: String
        var target: UnsafeBufferPointer<UInt8>
        var version: HTTPVersion
    }

    /// method SP request-target SP HTTP-version (RFC 9112 section 3): single spaces, no control bytes.
    private static func requestLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> RequestLine {
        var firstSpace = -1
        var secondSpace = -1
        for (offset, byte) in line.enumerated() {
            if byte == ASCII.space {
                if firstSpace < 0 {
                    firstSpace = offset
                } else if secondSpace < 0 {
                    secondSpace = offset
                } else {
                    throw HTTPParseError(400, "malformed request line")
                }
            } else if byte < 0x20 || byte == 0x7F {
                throw HTTPParseError(400, "control byte in request line")
            }
        }
        guard secondSpace > 0 else { throw HTTPParseError(400, "malformed request line") }
        let methodBytes = UnsafeBufferPointer(rebasing: line[0..<firstSpace])
        let targetBytes = UnsafeBufferPointer(rebasing: line[(firstSpace + 1)..<secondSpace])
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(ASCII.isToken) else { throw HTTPParseError(400, "invalid method") }
        let version = try self.version(UnsafeBufferPointer(rebasing: line[(secondSpace + 1)...]))
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) else {
            throw HTTPParseError(400, "invalid request target")
        }
        return RequestLine(method: String(decoding: methodBytes, as: UTF8.self), target: targetBytes, version: version)
    }

    /// "HTTP/1.0" and "HTTP/1.1" are served; other well-formed versions get 505, anything else 400.
    private static func version(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> HTTPVersion {
        guard bytes.count == 8, bytes.starts(with: "HTTP/".utf8), bytes[6] == UInt8(ascii: "."),
              (48...57).contains(bytes[5]), (48...57).contains(bytes[7]) else {
            throw HTTPParseError(400, "malformed HTTP version")
        }
        let version = HTTPVersion(major: Int(bytes[5] - 48), minor: Int(bytes[7] - 48))
        guard version == .http1_1 || version == .http1_0 else { throw HTTPParseError(505, "HTTP version not supported") }
        return version
    }

    // MARK: Fields

    /// The header fields, and the few the parser itself acts on.
    private struct Fields {
        var headers = HTTPHeaders()
        var contentLengths: [String] = []
        var transferEncodings: [String] = []
        var hostCount = 0
        var expect: String?
    }

    private static func fields(_ raw: UnsafeBufferPointer<UInt8>, lines: ArraySlice<Range<Int>>,
                               limits: ParserLimits) throws(HTTPParseError) -> Fields {
        if lines.count > limits.maxHeaderCount { throw HTTPParseError(431, "too many header fields") }
        var fields = Fields()
        for range in lines {
            let line = UnsafeBufferPointer(rebasing: raw[range])
            let (nameRange, valueRange) = try field(line)
            let nameBytes = UnsafeBufferPointer(rebasing: line[nameRange])
            let value = String(decoding: line[valueRange], as: UTF8.self)
            if ASCII.equalsIgnoringCase(nameBytes, "content-length") {
                fields.contentLengths.append(value)
            } else if ASCII.equalsIgnoringCase(nameBytes, "transfer-encoding") {
                fields.transferEncodings.append(value)
            } else if ASCII.equalsIgnoringCase(nameBytes, "host") {
                fields.hostCount += 1
            } else if ASCII.equalsIgnoringCase(nameBytes, "expect") {
                fields.expect = value
            }
            fields.headers.add(String(decoding: nameBytes, as: UTF8.self), value)
        }
        return fields
    }

    /// One `name: value` line (RFC 9112 section 5): no obs-fold, a token name with no space before the colon, and a
    /// value without control bytes. Returns the name and the value without surrounding whitespace.
    /// Trailer fields are checked with it too (RFC 9112 section 7.1.2).
    static func field(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> (name: Range<Int>, value: Range<Int>) {
        if line[0] == ASCII.space || line[0] == ASCII.tab { throw HTTPParseError(400, "obsolete line folding") }
        guard let colon = line.firstIndex(of: ASCII.colon), colon > 0 else { throw HTTPParseError(400, "malformed header field") }
        guard line[0..<colon].allSatisfy(ASCII.isToken) else { throw HTTPParseError(400, "invalid header name") }
        var start = colon + 1
        var end = line.count
        while start < end && (line[start] == ASCII.space || line[start] == ASCII.tab) { start += 1 }
        while end > start && (line[end - 1] == ASCII.space || line[end - 1] == ASCII.tab) { end -= 1 }
        guard line[start..<end].allSatisfy(ASCII.isFieldValue) else { throw HTTPParseError(400, "control byte in header value") }
        return (0..<colon, start..<end)
    }

    // MARK: Framing

    /// RFC 9112 section 6: anything ambiguous is refused, since it is how requests get smuggled.
    private static func framing(_ fields: Fields, version: HTTPVersion) throws(HTTPParseError) -> RequestHead.Framing {
        if !fields.transferEncodings.isEmpty {
            // Section 6.1: in HTTP/1.0, Transfer-Encoding means faulty framing, even beside a Content-Length.
            if version == .http1_0 { throw HTTPParseError(400, "Transfer-Encoding in HTTP/1.0") }
            if !fields.contentLengths.isEmpty { throw HTTPParseError(400, "both Content-Length and Transfer-Encoding") }
            let codings = fields.transferEncodings.joined(separator: ",").split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingSpaces.lowercased() }
            if codings.contains(where: \.isEmpty) { throw HTTPParseError(400, "malformed Transfer-Encoding") }
            let others = codings.filter { $0 != "chunked" }
            if codings.count - others.count > 1 { throw HTTPParseError(400, "chunked applied twice") }
            if !others.allSatisfy(knownCodings.contains) { throw HTTPParseError(400, "unknown transfer coding") }
            if codings.last != "chunked" || !others.isEmpty { throw HTTPParseError(501, "unsupported transfer coding") }
            return .chunked
        }
        guard !fields.contentLengths.isEmpty else { return .none }
        if fields.contentLengths.count > 1 { throw HTTPParseError(400, "multiple Content-Length") }
        guard let length = parseContentLength(fields.contentLengths[0]) else { throw HTTPParseError(400, "invalid Content-Length") }
        return .length(length)
    }

    /// 1 to 18 ASCII digits and nothing else (no sign, no spaces, no lists), so it can never overflow.
    static func parseContentLength(_ text: String) -> Int? {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 48 && byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    // MARK: Target

    /// Origin-form only (RFC 9112 section 3.2.1), plus "*" for OPTIONS; the authority is never taken from the target.
    private static func target(_ bytes: UnsafeBufferPointer<UInt8>,
                               method: String) throws(HTTPParseError) -> (rawPath: String, path: String, query: String) {
        if bytes.count == 1 && bytes[0] == UInt8(ascii: "*") {
            guard method == "OPTIONS" else { throw HTTPParseError(400, "asterisk target outside OPTIONS") }
            return ("*", "*", "")
        }
        guard bytes[0] == UInt8(ascii: "/") else {
            if method == "CONNECT" { throw HTTPParseError(501, "CONNECT not supported") }
            throw HTTPParseError(400, "target not in origin-form")
        }
        let pathEnd = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
        let pathBytes = UnsafeBufferPointer(rebasing: bytes[0..<pathEnd])
        let rawPath = String(decoding: pathBytes, as: UTF8.self)
        let query = pathEnd < bytes.count ? String(decoding: bytes[(pathEnd + 1)...], as: UTF8.self) : ""
        let path: String
        do {
            // Most paths have nothing to decode: reuse the raw string instead of building a new one.
            path = pathBytes.contains(ASCII.percent) ? try PercentDecoding.decode(pathBytes, plusIsSpace: false, allowNUL: false) : rawPath
        } catch .invalidUTF8 {
            throw HTTPParseError(400, "path is not UTF-8")
        } catch .nul {
            throw HTTPParseError(400, "NUL in path")
        } catch {
            throw HTTPParseError(400, "bad percent-encoding in path")
        }
        if hasDotSegment(path) { throw HTTPParseError(400, "dot segment in path") }
        return (rawPath, path, query)
    }

    /// Whether a decoded path has a "." or ".." segment (e.g. from "/..%2f"), which no route should ever see.
    private static func hasDotSegment(_ path: String) -> Bool {
        for segment in path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if segment.count == 1 && segment.first == UInt8(ascii: ".") { return true }
            if segment.count == 2 && segment.allSatisfy({ $0 == UInt8(ascii: ".") }) { return true }
        }
        return false
    }
}
