/// Turns requests into responses. Implementations must be thread-safe: the server calls them from many threads.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) -> HTTPResponse

    /// How the server should run `request`; the default runs `respond(to:)` on the worker pool.
    func route(for request: HTTPRequest) -> HTTPRoute
}

extension HTTPResponder {
    public func route(for request: HTTPRequest) -> HTTPRoute {
        HTTPRoute(execution: .worker, wantsBody: true, handler: { self.respond(to: $0) })
    }
}

/// The handler chosen for a request and where it must run.
public struct HTTPRoute: Sendable {
    public var execution: Router.Execution
    /// False for fallback answers (404/405/501) that never read the body; lets `Expect: 100-continue` be refused early.
    public var wantsBody: Bool
    public var handler: @Sendable (HTTPRequest) -> HTTPResponse
    /// The registered path pattern that matched, for metrics labels; nil when no route matched the path.
    public var pattern: String?

    public init(execution: Router.Execution, wantsBody: Bool = true, pattern: String? = nil,
                handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.execution = execution
        self.wantsBody = wantsBody
        self.pattern = pattern
        self.handler = handler
    }
}
