import HTTP
import Logging
import Storage

/// `/healthz` (the process answers) and `/readyz` (the database answers reads and takes writes),
/// on the public listener and, timed into the query metric, on the admin listener.
struct HealthHandlers: Sendable {
    let store: any GatehouseStorage
    let logger: Logger
    var metrics: GatehouseMetrics?

    private static let ok = Array(#"{"status":"ok"}"#.utf8)
    private static let unreadable = Array(#"{"status":"unavailable","reason":"database"}"#.utf8)
    private static let unwritable = Array(#"{"status":"unavailable","reason":"database_writes"}"#.utf8)

    func liveness(_ request: HTTPRequest) -> HTTPResponse {
        var response = HTTPResponse.json(Self.ok)
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// 503 while a reader cannot answer, or while writes fail (a full disk, a read-only file, an I/O
    /// error: reads still work then, but no sign-in or refresh can). Recovers by itself once writes work.
    func readiness(_ request: HTTPRequest) -> HTTPResponse {
        var body = Self.ok
        var status = 200
        do {
            try timed(store.ping)
            do {
                try store.checkWrites()
            } catch {
                (body, status) = (Self.unwritable, 503)
                logger.error("readiness_failed", ["request_id": .string(request.requestID), "error": .string(String(describing: error))])
            }
        } catch {
            (body, status) = (Self.unreadable, 503)
            logger.error("readiness_failed", ["request_id": .string(request.requestID), "error": .string(String(describing: error))])
        }
        var response = HTTPResponse.json(body, status: status)
        response.headers.set("Cache-Control", "no-store")
        if status != 200 { response.headers.set("Retry-After", "1") }
        return response
    }

    private func timed(_ body: () throws -> Void) throws {
        guard let metrics else { return try body() }
        try metrics.timeDatabaseQuery(body)
    }
}
