/// Exact-path routing under a prefix, with 404, 405 + Allow, 501 and HEAD-via-GET handled here.
public struct Router: HTTPResponder {
    /// Where a handler runs.
    public enum Execution: Sendable {
        /// Cheap and non-blocking: runs on the I/O thread, skipping the worker-pool hop.
        case inline
        /// May block (SQLite, crypto): runs on the bounded worker pool.
        case worker
    }

    private struct Entry: Sendable {
        var execution: Execution
        var handler: @Sendable (HTTPRequest) -> HTTPResponse
    }

    /// Methods this server knows; well-formed others get 501 instead of 405.
    static let standardMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT"]

    public let prefix: String
    private var table: [String: [String: Entry]] = [:]

    /// All routes live under `prefix` (for example the issuer path "/auth/").
    public init(prefix: String = "/") {
        var normalized = prefix.hasPrefix("/") ? prefix : "/" + prefix
        if !normalized.hasSuffix("/") { normalized += "/" }
        self.prefix = normalized
    }

    /// Registers `handler` for `method` on `path` (relative to the prefix; a leading "/" is optional).
    public mutating func add(_ method: String, _ path: String, execution: Execution = .worker,
                             _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        table[fullPath(path), default: [:]][method.uppercased()] = Entry(execution: execution, handler: handler)
    }

    /// The absolute path a relative route path maps to.
    public func fullPath(_ path: String) -> String {
        let relative = path.hasPrefix("/") ? String(path.dropFirst()) : path
        return prefix + relative
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let chosen = route(for: request)
        var response = chosen.handler(request)
        if request.method == "HEAD" {
            // Keep the GET length so HEAD headers match GET's.
            if response.headers["Content-Length"] == nil {
                response.headers.set("Content-Length", String(response.body.count))
            }
            response.body = []
        }
        return response
    }

    public func route(for request: HTTPRequest) -> HTTPRoute {
        guard let methods = table[request.path] else {
            return HTTPRoute(execution: .inline, wantsBody: false) { _ in .jsonError("not_found", status: 404) }
        }
        if let entry = methods[request.method] ?? (request.method == "HEAD" ? methods["GET"] : nil) {
            return HTTPRoute(execution: entry.execution, pattern: request.path, handler: entry.handler)
        }
        if !Self.standardMethods.contains(request.method) {
            return HTTPRoute(execution: .inline, wantsBody: false, pattern: request.path) { _ in .jsonError("not_implemented", status: 501) }
        }
        var allowed = Set(methods.keys)
        if allowed.contains("GET") { allowed.insert("HEAD") }
        let allow = allowed.sorted().joined(separator: ", ")
        return HTTPRoute(execution: .inline, wantsBody: false, pattern: request.path) { _ in
            var response = HTTPResponse.jsonError("method_not_allowed", status: 405)
            response.headers.set("Allow", allow)
            return response
        }
    }
}
