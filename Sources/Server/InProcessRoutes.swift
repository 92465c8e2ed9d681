import HTTP
import KeyManagement
import Logging
import Model
import Settings
import Storage

/// The daemon's public routes over an open store, with no sockets, threads or background tasks:
/// what `GatehouseServer` serves, for callers that hand requests in directly (the in-process route
/// harness in `Tests/TestSupport`). Audit events are written by `flushAudit()`.
public struct InProcessRoutes: Sendable {
    public let responder: any HTTPResponder
    private let audit: AuditRecorder

    /// Opens (or creates) the signing keys in `store` as the daemon does.
    /// - Parameter mail: where account messages go (a test's queue); nil: email delivery off.
    public init(settings: Settings, store: any GatehouseStorage, logger: Logger, clock: any Clock = SystemClock(), mail: (any MailQueue)? = nil) throws {
        let keyRing = try KeyRing(manager: try KeyManager.open(store: store, settings: settings), logger: logger)
        let parts = Composition(settings: settings, store: store, keyRing: keyRing, logger: logger, metrics: GatehouseMetrics(version: "in-process"),
                                clock: clock, mail: mail)
        responder = Routes(parts: parts, store: store).responder()
        audit = parts.services.auditRecorder
    }

    /// Runs the request's route on the calling thread and returns its answer.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        responder.route(for: request).handler(request)
    }

    /// Writes the audit events queued so far.
    public func flushAudit() { audit.flush() }
}
