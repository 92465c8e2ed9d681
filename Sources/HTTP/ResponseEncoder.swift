/// Validates, compresses and serializes responses. `prepare` may run on any thread; `serialize` runs on the event loop.
enum ResponseEncoder {
    /// Header names the server always writes itself; handler values for them are dropped.
    private static func isServerOwned(_ name: String) -> Bool {
        HTTPHeaders.same(name, "Content-Length") || HTTPHeaders.same(name, "Date") || HTTPHeaders.same(name, "Connection")
            || HTTPHeaders.same(name, "Transfer-Encoding") || HTTPHeaders.same(name, "X-Request-Id") || HTTPHeaders.same(name, "Keep-Alive")
    }

    /// Why a handler's response cannot be sent as is.
    static func validationProblem(_ response: HTTPResponse) -> String? {
        guard (200...599).contains(response.status) else { return "invalid status" }
        for (name, value) in response.headers {
            guard ASCII.isTokenString(name) else { return "invalid header name" }
            guard value.utf8.allSatisfy(ASCII.isFieldValue) else { return "control byte in header value" }
        }
        return nil
    }

    /// Checks the handler's response (refusing header splitting with a 500) and gzips it when allowed.
    static func prepare(_ response: HTTPResponse, acceptEncoding: String?, gzipMinimumBytes: Int,
                        onInvalid: (String) -> Void) -> HTTPResponse {
        var response = response
        if let problem = validationProblem(response) {
            onInvalid(problem)
            return .jsonError("internal_error", status: 500)
        }
        if response.status != 204 && response.status != 304 && response.body.count >= gzipMinimumBytes
            && response.headers["Content-Encoding"] == nil && Gzip.accepted(acceptEncoding),
           let compressed = Gzip.compress(response.body) {
            response.body = compressed
            response.headers.set("Content-Encoding", "gzip")
            if !response.headers.values("Vary").contains(where: { $0.lowercased().contains("accept-encoding") }) {
                response.headers.add("Vary", "Accept-Encoding")
            }
        }
        return response
    }

    /// Appends the status line, headers and (unless HEAD) body to `out`; returns the body bytes written.
    static func serialize(_ response: HTTPResponse, into out: inout [UInt8], isHead: Bool, requestID: String,
                          close: Bool, keepAliveHeader: Bool, date: [UInt8]) -> Int {
        let status = response.status
        out.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(status, to: &out)
        out.append(ASCII.space)
        out.append(contentsOf: StatusReason.phrase(status).utf8)
        out.append(contentsOf: "\r\nDate: ".utf8)
        out.append(contentsOf: date)
        let noBody = status == 204 || status == 304 || status < 200
        var declaredLength = response.body.count
        for (name, value) in response.headers {
            if isServerOwned(name) {
                // A HEAD answer from `Router.respond` carries the GET length with an empty body.
                if isHead && response.body.isEmpty && HTTPHeaders.same(name, "Content-Length"),
                   let length = HeadParser.parseContentLength(value) {
                    declaredLength = length
                }
                continue
            }
            out.append(ASCII.cr)
            out.append(ASCII.lf)
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: ": ".utf8)
            out.append(contentsOf: value.utf8)
        }
        if status != 204 && status >= 200 {
            out.append(contentsOf: "\r\nContent-Length: ".utf8)
            appendDecimal(noBody && status != 304 ? 0 : declaredLength, to: &out)
        }
        out.append(contentsOf: "\r\nX-Request-Id: ".utf8)
        out.append(contentsOf: requestID.utf8)
        if close {
            out.append(contentsOf: "\r\nConnection: close".utf8)
        } else if keepAliveHeader {
            out.append(contentsOf: "\r\nConnection: keep-alive".utf8)
        }
        out.append(contentsOf: "\r\n\r\n".utf8)
        if isHead || noBody { return 0 }
        out.append(contentsOf: response.body)
        return response.body.count
    }

    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(48 + value))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var remaining = value
        withUnsafeMutableBytes(of: &digits) { raw in
            while remaining > 0 {
                raw[count] = UInt8(48 + remaining % 10)
                remaining /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { out.append(raw[index]) }
        }
    }
}
