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
    /// Routes for every path under a prefix (`api/v2/users/` + an id), tried when no exact path matches.
    private var prefixTable: [(path: String, methods: [String: Entry])] = []

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

    /// Registers `handler` for `method` on every path that starts with `pathPrefix` and goes on
    /// (relative to the router's prefix); the handler reads the rest from `request.path`.
    public mutating func add(_ method: String, under pathPrefix: String, execution: Execution = .worker,
                             _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        let full = fullPath(pathPrefix)
        let entry = Entry(execution: execution, handler: handler)
        if let index = prefixTable.firstIndex(where: { $0.path == full }) {
            prefixTable[index].methods[method.uppercased()] = entry
        } else {
            prefixTable.append((full, [method.uppercased(): entry]))
        }
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
        let underPrefix = prefixTable.first { request.path.count > $0.path.count && request.path.hasPrefix($0.path) }
        guard let methods = table[request.path] ?? underPrefix?.methods else {
            return HTTPRoute(execution: .inline, wantsBody: false) { _ in .jsonError("not_found", status: 404) }
        }
        // One metrics label per prefix route, never one per id under it.
        let pattern = table[request.path] != nil ? request.path : (underPrefix?.path ?? "") + "{id}"
        if let entry = methods[request.method] ?? (request.method == "HEAD" ? methods["GET"] : nil) {
            return HTTPRoute(execution: entry.execution, pattern: pattern, handler: entry.handler)
        }
        if !Self.standardMethods.contains(request.method) {
            return HTTPRoute(execution: .inline, wantsBody: false, pattern: pattern) { _ in .jsonError("not_implemented", status: 501) }
        }
        var allowed = Set(methods.keys)
        if allowed.contains("GET") { allowed.insert("HEAD") }
        let allow = allowed.sorted().joined(separator: ", ")
        return HTTPRoute(execution: .inline, wantsBody: false, pattern: pattern) { _ in
            var response = HTTPResponse.jsonError("method_not_allowed", status: 405)
            response.headers.set("Allow", allow)
            return response
        }
    }
}
