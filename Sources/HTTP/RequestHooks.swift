/// Optional callbacks that let the application see requests without the HTTP layer knowing its policy
/// (which proxies to trust, which metrics to keep).

/// Called on the event-loop thread as each request is parsed, with the direct peer and the header fields.
/// Returns the client address to record in `HTTPRequest.clientAddress` and the access log, and a request
/// id to use instead of a generated one (nil: generate). Must be fast, thread-safe and non-blocking.
public typealias RequestIdentityHook = @Sendable (_ peer: PeerAddress, _ headers: HTTPHeaders)
    -> (clientAddress: String, requestID: String?)

/// Called once per answered request (including 404/405 fallbacks and 400s for unparseable requests) after
/// the response is queued, on the event-loop thread. `route` is the router's registered pattern, `"unmatched"`
/// when no route matched the path, or `"rejected"` for a request that could not be parsed (whose
/// `HTTPRequest` then carries only the peer and request id); `bytes` is the serialized response size;
/// `duration` is seconds from dispatch to queueing. Must be fast, thread-safe and non-blocking.
public typealias ResponseObserver = @Sendable (_ request: HTTPRequest, _ route: String, _ status: Int,
                                               _ bytes: Int, _ duration: Double) -> Void

extension HTTPRoute {
    /// The route label for requests no registered pattern matched.
    public static let unmatchedPattern = "unmatched"
}
