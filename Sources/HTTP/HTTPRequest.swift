/// One parsed request, as handed to responders.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The raw request-target exactly as received.
    public var target: String
    /// The path, percent-decoded exactly once; always valid UTF-8 (the server answers 400 otherwise).
    public var path: String
    /// The path before decoding.
    public var rawPath: String
    /// The raw, undecoded query (without `?`); "" when there is none.
    public var query: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var peer: PeerAddress
    /// Server-generated identifier echoed in `X-Request-Id` and the access log.
    public var requestID: String
    /// The client's address as derived by `HTTPServerConfiguration.requestIdentity` (a trusted proxy's
    /// X-Forwarded-For), otherwise the peer's text (`peer.description`).
    public var clientAddress: String
    /// The router pattern that matched (set by the server before the handler runs); nil when none did.
    public var routePattern: String?

    public init(
        method: String = "GET",
        target: String = "/",
        path: String? = nil,
        rawPath: String? = nil,
        query: String? = nil,
        version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        peer: PeerAddress = .ip("127.0.0.1", port: 0),
        requestID: String = "",
        clientAddress: String? = nil
    ) {
        let split = target.firstIndex(of: "?")
        let targetPath = split.map { String(target[..<$0]) } ?? target
        self.method = method
        self.target = target
        self.rawPath = rawPath ?? targetPath
        self.path = path ?? (try? PercentDecoding.decode(targetPath.utf8, plusIsSpace: false)) ?? targetPath
        self.query = query ?? split.map { String(target[target.index(after: $0)...]) } ?? ""
        self.version = version
        self.headers = headers
        self.body = body
        self.peer = peer
        self.requestID = requestID
        self.clientAddress = clientAddress ?? peer.description
    }

    /// The query decoded as a form; nil when it is not valid form encoding (bad `%` escape or invalid UTF-8).
    public var queryItems: [(String, String)]? {
        try? FormCodec.decode(query)
    }

    /// Whether the client asked to keep the connection open (HTTP/1.1 default on, HTTP/1.0 default off).
    public var wantsKeepAlive: Bool { Self.keepAlive(version: version, headers: headers) }

    static func keepAlive(version: HTTPVersion, headers: HTTPHeaders) -> Bool {
        var close = false
        var keepAlive = false
        for value in headers.values("Connection") {
            for option in value.split(separator: ",") {
                let token = option.trimmingSpaces
                if HTTPHeaders.same(token, "close") { close = true }
                if HTTPHeaders.same(token, "keep-alive") { keepAlive = true }
            }
        }
        if close { return false }
        return version == .http1_1 || keepAlive
    }
}

extension Substring {
    /// Drops leading and trailing SP/HTAB (optional whitespace).
    var trimmingSpaces: String {
        var view = self[...]
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}
