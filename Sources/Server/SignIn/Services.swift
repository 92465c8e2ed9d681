import KeyManagement
import Logging
import Model
import OIDC
import Settings

/// What every web adapter needs besides its own piece of the protocol core: configuration, the
/// clock, logging, auditing, metrics, cookies, and the client store (CORS and per-app pages).
/// Built once by the composition root (`Composition.swift`).
struct Services: Sendable {
    let settings: Settings
    let clock: any Clock
    let logger: Logger
    let auditRecorder: AuditRecorder
    let metrics: GatehouseMetrics
    let cookies: CookieSpec
    let clients: any ClientStore
    /// Page texts in every shipped language, with the operator's overrides.
    var pageText: PageText = .shipped

    var issuer: Issuer { settings.issuer }

    /// Queues an audit event; the recorder writes it within a fraction of a second.
    func record(_ event: String, userID: String? = nil, clientID: String? = nil, ip: String?, details: [String: String] = [:]) {
        auditRecorder.record(AuditEvent(time: clock.now, event: event, userID: userID, clientID: clientID, ip: ip,
                                        actor: userID == nil ? "system" : "user", details: details))
    }

    /// Records what the protocol core reported: an audit event each, the login metric, and a log
    /// line for failed and throttled logins (operators ship logs, not the audit table).
    func record(_ context: RequestContext) {
        for event in context.events {
            record(event.kind.rawValue, userID: event.userID, clientID: event.clientID, ip: context.clientIP, details: event.details)
            if let result = event.kind.loginResult { metrics.recordLogin(result: result) }
            switch event.kind {
            case .refreshTokenReused:
                metrics.recordRefreshTokenReuse()
                logger.warning("refresh_token_reused", ["ip": .string(context.clientIP), "user_id": .string(event.userID ?? ""),
                                                        "client_id": .string(event.clientID ?? ""),
                                                        "grant_id": .string(event.details["grant_id"] ?? "")])
            case .sessionTransferRejected:
                // A spent, stolen or misdirected token is worth an operator's look; the token itself is never logged.
                var fields: [String: LogValue] = ["ip": .string(context.clientIP), "client_id": .string(event.clientID ?? "")]
                for (key, value) in event.details { fields[key] = .string(value) }
                logger.info("session_transfer_rejected", fields)
            case .loginFailed, .loginThrottled:
                var fields: [String: LogValue] = ["ip": .string(context.clientIP), "user_id": .string(event.userID ?? ""),
                                                  "client_id": .string(event.clientID ?? "")]
                for (key, value) in event.details { fields[key] = .string(value) }
                logger.log(event.kind == .loginThrottled ? .warning : .info, event.kind == .loginThrottled ? "login_throttled" : "login_rejected",
                           fields)
            default:
                break
            }
        }
    }
}
