import Logging

/// Turning parsed requests into queued responses, in order, on the loop thread.
extension EventLoop {
    /// Parses and dispatches buffered requests until one is with a worker, the connection is closing, or more bytes are needed.
    func process(_ connection: Connection) {
        while true {
            switch connection.machine.nextRequest(now: now) {
            case .wait: return
            case .reject(let error): reject(connection, error)
            case .expectsContinue(let head): answerExpectation(connection, head: head)
            case .request(let head, let body): dispatch(connection, head: head, body: body)
            }
        }
    }

    /// `Expect: 100-continue`: invite the body only if a real handler wants it; otherwise answer now and close.
    private func answerExpectation(_ connection: Connection, head: RequestHead) {
        var request = makeRequest(connection, head: head, body: [])
        let route = context.responder.route(for: request)
        request.routePattern = route.pattern
        if route.wantsBody {
            connection.output.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
            connection.machine.outputQueued(unsent: connection.pendingOutput)
        } else {
            var closing = request
            closing.headers.set("Connection", "close")
            complete(connection, request: closing, response: route.handler(request), start: now, forceClose: true)
        }
    }

    func makeRequest(_ connection: Connection, head: RequestHead, body: [UInt8]) -> HTTPRequest {
        var clientAddress: String?
        var requestID: String?
        if let identify = context.configuration.requestIdentity {
            (clientAddress, requestID) = identify(connection.peer, head.headers)
        }
        return HTTPRequest(method: head.method, target: head.target, path: head.path, rawPath: head.rawPath, query: head.query,
                           version: head.version, headers: head.headers, body: body, peer: connection.peer,
                           requestID: requestID ?? requestIDs.next(), clientAddress: clientAddress)
    }

    private func dispatch(_ connection: Connection, head: RequestHead, body: [UInt8]) {
        var parsed = makeRequest(connection, head: head, body: body)
        let route = context.responder.route(for: parsed)
        parsed.routePattern = route.pattern
        let request = parsed
        let start = now
        switch route.execution {
        case .inline:
            complete(connection, request: request, response: route.handler(request), start: start, keepAlive: head.keepAlive)
        case .worker:
            // The body stays counted until the answer is queued, and a worker's body cannot be shed: make room
            // for it now, or refuse it (a body that arrived in one read was never sheddable on its way in).
            account(connection)
            if !body.isEmpty && !makeRoom(for: body.capacity, holding: connection) {
                refuseForBudget(connection)
                return
            }
            connection.machine.dispatched(bodyBytes: body.capacity)
            let handler = route.handler
            let context = self.context
            context.pool.submit { [self] in
                let response = Self.prepare(handler(request), for: request, context: context)
                finishOnWorker(connection, request: request, response: response, start: start)
            }
        }
    }

    /// Runs on the worker: queues the answer and writes it straight to the socket, sparing the loop a wake-up
    /// and two epoll changes per request. The loop gets the connection back only when something more than
    /// "answer written, wait for the next request" is due: pipelined input, a close, a partial write, a failure.
    func finishOnWorker(_ connection: Connection, request: HTTPRequest, response: HTTPResponse, start: UInt64) {
        let handBack = connection.lock.withLock { () -> Bool in
            switch connection.machine.workerFinished() {
            case .respond:
                break
            case .close:
                // The loop has stopped and left the descriptor to us (see `finish()`).
                Sys.close(connection.fd)
                context.admission.release(connection.peer)
                return false
            default:
                return true  // The socket failed meanwhile; the loop closes it.
            }
            let now = Sys.monotonicNanoseconds()
            complete(connection, request: request, response: response, start: start, prepared: true,
                     now: now, date: HTTPDateCache.now())
            guard connection.writePending(now: now) else {
                connection.machine.workerWriteFailed()
                return true
            }
            return connection.machine.needsLoop(registered: connection.interest)
        }
        if handBack { resume(connection) }
    }

    /// Validation and gzip; runs on the worker for worker routes so the loop stays cheap.
    static func prepare(_ response: HTTPResponse, for request: HTTPRequest, context: ServerContext) -> HTTPResponse {
        ResponseEncoder.prepare(response, acceptEncoding: request.headers["Accept-Encoding"],
                                gzipMinimumBytes: context.configuration.gzipMinimumBytes) { problem in
            context.logger.error("http_invalid_response", ["request_id": .string(request.requestID), "reason": .string(problem),
                                                           "path": .string(request.path)])
        }
    }

    /// Queues the answer to `request` on the loop thread.
    func complete(_ connection: Connection, request: HTTPRequest, response: HTTPResponse, start: UInt64,
                  keepAlive: Bool? = nil, forceClose: Bool = false) {
        complete(connection, request: request, response: response, start: start, keepAlive: keepAlive, prepared: false,
                 forceClose: forceClose, now: now, date: dateCache.current())
    }

    /// Queues the answer to `request` and writes its access-log line. Runs on the loop, or on the worker that
    /// owns the connection; either way under the connection's lock.
    func complete(_ connection: Connection, request: HTTPRequest, response: HTTPResponse, start: UInt64,
                  keepAlive: Bool? = nil, prepared: Bool, forceClose: Bool = false, now: UInt64, date: [UInt8]) {
        let final = prepared ? response : Self.prepare(response, for: request, context: context)
        // A handler may ask to end the connection with `Connection: close`.
        var handlerCloses = false
        for (name, value) in final.headers where HTTPHeaders.same(name, "Connection") {
            handlerCloses = handlerCloses || value.lowercased().contains("close")
        }
        let stopping = context.stopping.load(ordering: .relaxed)
        let close = forceClose || handlerCloses || !(keepAlive ?? request.wantsKeepAlive) || stopping
        let bytes = ResponseEncoder.serialize(final, into: &connection.output, isHead: request.method == "HEAD",
                                              requestID: request.requestID, close: close,
                                              keepAliveHeader: request.version == .http1_0, date: date)
        connection.machine.responseQueued(close: close, unsent: connection.pendingOutput, now: now)
        let end = Sys.monotonicNanoseconds()
        if context.logger.isEnabled(.info) {
            var fields: [String: LogValue] = [
                "request_id": .string(request.requestID),
                "method": .string(request.method),
                "path": .string(request.path),
                "status": .int(final.status),
                "bytes": .int(bytes),
                "duration_ms": .double(Double(end &- start) / 1_000_000),
                "peer": .string(request.clientAddress),
            ]
            let direct = connection.peer.description
            if direct != request.clientAddress { fields["proxy"] = .string(direct) }
            context.logger.info("access", fields)
        }
        context.configuration.onResponse?(request, request.routePattern ?? HTTPRoute.unmatchedPattern, final.status, bytes,
                                           Double(end &- start) / 1_000_000_000)
    }

    /// Answers a parse error, timeout or refusal and closes: after a framing error nothing else on the connection
    /// can be trusted.
    func reject(_ connection: Connection, _ error: HTTPParseError, retryAfter: Int? = nil) {
        connection.machine.refuse(error)
        let requestID = requestIDs.next()
        context.logger.warning("http_request_rejected", [
            "request_id": .string(requestID),
            "status": .int(error.status),
            "reason": .string(error.reason),
            "peer": .string(connection.peer.description),
        ])
        var response = HTTPResponse.jsonError(StatusReason.errorCode(error.status), status: error.status)
        if let retryAfter { response.headers.set("Retry-After", String(retryAfter)) }
        let bytes = ResponseEncoder.serialize(response, into: &connection.output, isHead: false, requestID: requestID,
                                              close: true, keepAliveHeader: false, date: dateCache.current())
        connection.machine.outputQueued(unsent: connection.pendingOutput)
        if let observe = context.configuration.onResponse {
            let request = HTTPRequest(method: "-", target: "/", peer: connection.peer, requestID: requestID)
            observe(request, "rejected", error.status, bytes, 0)
        }
    }
}
