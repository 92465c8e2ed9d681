import HTTP
import Logging
import Storage

/// `/healthz` (the process answers) and `/readyz` (the database answers).
struct HealthHandlers: Sendable {
    let store: Store
    let logger: Logger

    private static let ok = Array(#"{"status":"ok"}"#.utf8)
    private static let unavailable = Array(#"{"status":"unavailable","reason":"database"}"#.utf8)

    func liveness(_ request: HTTPRequest) -> HTTPResponse {
        var response = HTTPResponse.json(Self.ok)
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    func readiness(_ request: HTTPRequest) -> HTTPResponse {
        do {
            try store.ping()
            var response = HTTPResponse.json(Self.ok)
            response.headers.set("Cache-Control", "no-store")
            return response
        } catch {
            logger.error("readiness_failed", ["request_id": .string(request.requestID), "error": .string(String(describing: error))])
            var response = HTTPResponse.json(Self.unavailable, status: 503)
            response.headers.set("Cache-Control", "no-store")
            response.headers.set("Retry-After", "1")
            return response
        }
    }
}
