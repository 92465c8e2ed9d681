/// A response produced by a handler; the server adds Date, Content-Length and X-Request-Id.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ s: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "text/plain; charset=utf-8")]), body: Array(s.utf8))
    }

    /// An `application/json` response over already-encoded bytes.
    public static func json(_ bytes: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "application/json")]), body: bytes)
    }

    /// A `text/html; charset=utf-8` response.
    public static func html(_ s: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8")]), body: Array(s.utf8))
    }

    /// A small JSON error body `{"error":"code"}`; `code` must be plain ASCII with no quotes.
    static func jsonError(_ code: String, status: Int) -> HTTPResponse {
        json(Array("{\"error\":\"\(code)\"}".utf8), status: status)
    }
}
