/// The parsed request line and header fields, before the body arrives.
public struct RequestHead: Sendable {
    public var method: String
    public var target: String
    public var rawPath: String
    public var path: String
    public var query: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// Whether the connection may carry another request after this one.
    public var keepAlive: Bool
    /// The client sent `Expect: 100-continue`.
    public var expectContinue: Bool
    /// Framing chosen from Content-Length / Transfer-Encoding.
    var framing: Framing

    enum Framing: Sendable, Equatable {
        case none
        case length(Int)
        case chunked
    }

    /// Whether a body may follow the head.
    public var hasBody: Bool { framing != .none && framing != .length(0) }
}
