#if canImport(Glibc)
import Glibc
#endif

/// Listeners, limits and timeouts for `HTTPServer`.
public struct HTTPServerConfiguration: Sendable {
    public var listen: [ListenAddress]
    /// Sizes the parser enforces; the four properties below are shorthands for them.
    public var parserLimits = ParserLimits()
    /// Request line plus header fields; above this the answer is 431.
    public var maxHeaderBytes: Int {
        get { parserLimits.maxHeaderBytes }
        set { parserLimits.maxHeaderBytes = newValue }
    }
    /// Request line alone; above this the answer is 414.
    public var maxRequestLineBytes: Int {
        get { parserLimits.maxRequestLineBytes }
        set { parserLimits.maxRequestLineBytes = newValue }
    }
    public var maxHeaderCount: Int {
        get { parserLimits.maxHeaderCount }
        set { parserLimits.maxHeaderCount = newValue }
    }
    public var maxBodyBytes: Int {
        get { parserLimits.maxBodyBytes }
        set { parserLimits.maxBodyBytes = newValue }
    }
    /// From the first byte of a request (or the accept) until its header is complete.
    public var headerTimeout: Duration = .seconds(10)
    /// Between keep-alive requests.
    public var idleTimeout: Duration = .seconds(60)
    /// From the end of the header until the body is complete.
    public var bodyTimeout: Duration = .seconds(30)
    /// Longest wait without write progress while a response is pending.
    public var writeTimeout: Duration = .seconds(30)
    public var maxConnections: Int = 4096
    /// Connections from one peer IP address at most; further ones are closed at accept. 0 (the default here;
    /// the daemon sets 64) turns it off. Behind a proxy every connection comes from the proxy's address.
    public var maxConnectionsPerClient: Int = 0
    /// Request body bytes all connections may hold at once: bodies still arriving plus bodies of requests
    /// with workers. Each loop gets an even share (at least two maximal bodies); past it, the largest bodies
    /// still arriving on that loop are refused with 503 and `Retry-After`, and their connections closed.
    public var maxBufferedBodyBytes: Int = 64 << 20
    public var workerThreads: Int = 8
    public var drainTimeout: Duration = .seconds(10)
    public var gzipMinimumBytes: Int = 1024
    public var loopThreads: Int = HTTPServerConfiguration.processorCount
    /// Derives the client address and an accepted request id from the peer and headers (see `RequestIdentityHook`).
    public var requestIdentity: RequestIdentityHook?
    /// Observes every answered request, e.g. for metrics (see `ResponseObserver`).
    public var onResponse: ResponseObserver?

    public init(listen: [ListenAddress]) {
        self.listen = listen
    }

    static var processorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
