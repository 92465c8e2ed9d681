/// Turns the scanned lines of a request head into a `RequestHead`, applying every framing and syntax rule.
enum HeadParser {
    /// Transfer codings we recognise but do not implement (answered 501 rather than 400).
    private static let knownCodings: Set<String> = ["gzip", "x-gzip", "deflate", "compress", "x-compress", "identity", "br", "zstd"]

    static func parse(_ raw: UnsafeBufferPointer<UInt8>, lines: [Range<Int>], limits: ParserLimits) -> Result<RequestHead, HTTPParseError> {
        guard let requestLine = lines.first else { return .failure(HTTPParseError(400, "empty request")) }
        let lineBytes = UnsafeBufferPointer(rebasing: raw[requestLine])

        // Request line: method SP request-target SP HTTP-version, single spaces, no control bytes.
        var firstSpace = -1
        var secondSpace = -1
        for (offset, byte) in lineBytes.enumerated() {
            if byte == ASCII.space {
                if firstSpace < 0 {
                    firstSpace = offset
                } else if secondSpace < 0 {
                    secondSpace = offset
                } else {
                    return .failure(HTTPParseError(400, "malformed request line"))
                }
            } else if byte < 0x20 || byte == 0x7F {
                return .failure(HTTPParseError(400, "control byte in request line"))
            }
        }
        guard secondSpace > 0 else { return .failure(HTTPParseError(400, "malformed request line")) }
        let spaces = (firstSpace, secondSpace)
        let methodBytes = UnsafeBufferPointer(rebasing: lineBytes[0..<spaces.0])
        let targetBytes = UnsafeBufferPointer(rebasing: lineBytes[(spaces.0 + 1)..<spaces.1])
        let versionBytes = UnsafeBufferPointer(rebasing: lineBytes[(spaces.1 + 1)...])
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(ASCII.isToken) else {
            return .failure(HTTPParseError(400, "invalid method"))
        }
        let version: HTTPVersion
        switch parseVersion(versionBytes) {
        case .failure(let error): return .failure(error)
        case .success(let parsed): version = parsed
        }
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) else {
            return .failure(HTTPParseError(400, "invalid request target"))
        }
        let method = String(decoding: methodBytes, as: UTF8.self)

        // Header fields.
        if lines.count - 1 > limits.maxHeaderCount { return .failure(HTTPParseError(431, "too many header fields")) }
        var headers = HTTPHeaders()
        var contentLengths: [String] = []
        var transferEncodings: [String] = []
        var hostCount = 0
        var expect: String?
        for range in lines.dropFirst() {
            let line = UnsafeBufferPointer(rebasing: raw[range])
            if line[0] == ASCII.space || line[0] == ASCII.tab { return .failure(HTTPParseError(400, "obsolete line folding")) }
            guard let colon = line.firstIndex(of: ASCII.colon), colon > 0 else {
                return .failure(HTTPParseError(400, "malformed header field"))
            }
            let nameBytes = UnsafeBufferPointer(rebasing: line[0..<colon])
            guard nameBytes.allSatisfy(ASCII.isToken) else { return .failure(HTTPParseError(400, "invalid header name")) }
            var start = colon + 1
            var end = line.count
            while start < end && (line[start] == ASCII.space || line[start] == ASCII.tab) { start += 1 }
            while end > start && (line[end - 1] == ASCII.space || line[end - 1] == ASCII.tab) { end -= 1 }
            let valueBytes = UnsafeBufferPointer(rebasing: line[start..<end])
            guard valueBytes.allSatisfy(ASCII.isFieldValue) else {
                return .failure(HTTPParseError(400, "control byte in header value"))
            }
            let name = String(decoding: nameBytes, as: UTF8.self)
            let value = String(decoding: valueBytes, as: UTF8.self)
            if ASCII.equalsIgnoringCase(nameBytes, "content-length") {
                contentLengths.append(value)
            } else if ASCII.equalsIgnoringCase(nameBytes, "transfer-encoding") {
                transferEncodings.append(value)
            } else if ASCII.equalsIgnoringCase(nameBytes, "host") {
                hostCount += 1
            } else if ASCII.equalsIgnoringCase(nameBytes, "expect") {
                expect = value
            }
            headers.add(name, value)
        }

        if hostCount > 1 { return .failure(HTTPParseError(400, "duplicate Host")) }
        if hostCount == 0 && version == .http1_1 { return .failure(HTTPParseError(400, "missing Host")) }

        // Framing (RFC 9112 section 6): anything ambiguous is refused, since it is how requests get smuggled.
        var framing = RequestHead.Framing.none
        if !transferEncodings.isEmpty {
            if !contentLengths.isEmpty { return .failure(HTTPParseError(400, "both Content-Length and Transfer-Encoding")) }
            let codings = transferEncodings.joined(separator: ",").split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingSpaces.lowercased() }
            if codings.contains(where: \.isEmpty) { return .failure(HTTPParseError(400, "malformed Transfer-Encoding")) }
            let others = codings.filter { $0 != "chunked" }
            if codings.count - others.count > 1 { return .failure(HTTPParseError(400, "chunked applied twice")) }
            if !others.allSatisfy(knownCodings.contains) { return .failure(HTTPParseError(400, "unknown transfer coding")) }
            if codings.last != "chunked" || !others.isEmpty {
                return .failure(HTTPParseError(501, "unsupported transfer coding"))
            }
            framing = .chunked
        } else if !contentLengths.isEmpty {
            if contentLengths.count > 1 { return .failure(HTTPParseError(400, "multiple Content-Length")) }
            guard let length = parseContentLength(contentLengths[0]) else {
                return .failure(HTTPParseError(400, "invalid Content-Length"))
            }
            framing = .length(length)
        }

        var expectContinue = false
        if let expect {
            guard HTTPHeaders.same(expect, "100-continue") else { return .failure(HTTPParseError(417, "unsupported expectation")) }
            expectContinue = version == .http1_1
        }

        // Request target: origin-form only (plus "*" for OPTIONS); the authority is never taken from the target.
        let target = String(decoding: targetBytes, as: UTF8.self)
        let rawPath: String
        let query: String
        let path: String
        if targetBytes.count == 1 && targetBytes[0] == UInt8(ascii: "*") {
            guard method == "OPTIONS" else { return .failure(HTTPParseError(400, "asterisk target outside OPTIONS")) }
            rawPath = "*"
            query = ""
            path = "*"
        } else {
            guard targetBytes[0] == UInt8(ascii: "/") else {
                if method == "CONNECT" { return .failure(HTTPParseError(501, "CONNECT not supported")) }
                return .failure(HTTPParseError(400, "target not in origin-form"))
            }
            let pathEnd = targetBytes.firstIndex(of: UInt8(ascii: "?")) ?? targetBytes.count
            let pathBytes = UnsafeBufferPointer(rebasing: targetBytes[0..<pathEnd])
            rawPath = String(decoding: pathBytes, as: UTF8.self)
            query = pathEnd < targetBytes.count ? String(decoding: targetBytes[(pathEnd + 1)...], as: UTF8.self) : ""
            do {
                // Most paths have nothing to decode: reuse the raw string instead of building a new one.
                path = pathBytes.contains(ASCII.percent) ? try PercentDecoding.decode(pathBytes, plusIsSpace: false, allowNUL: false) : rawPath
            } catch .invalidUTF8 {
                return .failure(HTTPParseError(400, "path is not UTF-8"))
            } catch .nul {
                return .failure(HTTPParseError(400, "NUL in path"))
            } catch {
                return .failure(HTTPParseError(400, "bad percent-encoding in path"))
            }
            if hasDotSegment(path) { return .failure(HTTPParseError(400, "dot segment in path")) }
        }

        var head = RequestHead(method: method, target: target, rawPath: rawPath, path: path, query: query, version: version,
                               headers: headers, keepAlive: true, expectContinue: expectContinue, framing: framing)
        head.keepAlive = HTTPRequest.keepAlive(version: version, headers: headers)
        return .success(head)
    }

    /// "HTTP/1.0" and "HTTP/1.1" are served; other well-formed versions get 505, anything else 400.
    private static func parseVersion(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<HTTPVersion, HTTPParseError> {
        guard bytes.count == 8, bytes.starts(with: "HTTP/".utf8), bytes[6] == UInt8(ascii: "."),
              (48...57).contains(bytes[5]), (48...57).contains(bytes[7]) else {
            return .failure(HTTPParseError(400, "malformed HTTP version"))
        }
        let version = HTTPVersion(major: Int(bytes[5] - 48), minor: Int(bytes[7] - 48))
        guard version == .http1_1 || version == .http1_0 else {
            return .failure(HTTPParseError(505, "HTTP version not supported"))
        }
        return .success(version)
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

    /// Whether a decoded path has a "." or ".." segment (e.g. from "/..%2f"), which no route should ever see.
    private static func hasDotSegment(_ path: String) -> Bool {
        for segment in path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if segment.count == 1 && segment.first == UInt8(ascii: ".") { return true }
            if segment.count == 2 && segment.allSatisfy({ $0 == UInt8(ascii: ".") }) { return true }
        }
        return false
    }
}
