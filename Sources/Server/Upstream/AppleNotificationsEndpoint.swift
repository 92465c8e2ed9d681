import HTTP
import JOSE
import Logging
import OIDC

/// `POST {issuer}login/apple/notifications` (`AppleNotifications`): Apple's server-to-server events.
/// 200 when acted upon, and for an unknown subject too (Apple retries anything else); 400 for a
/// notification that does not verify, and nothing changes; 503 when the keys or the database cannot
/// be reached now, so Apple tries again.
struct AppleNotificationsEndpoint: Sendable {
    static let path = "login/apple/notifications"
    static let auditEvent: [AppleNotification.Kind: String] = [
        .consentRevoked: "upstream.apple_consent_revoked", .accountDelete: "upstream.apple_account_deleted",
        .emailDisabled: "upstream.apple_email_disabled", .emailEnabled: "upstream.apple_email_enabled",
    ]

    let services: Services
    let notifications: AppleNotifications

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        do throws(AppleNotificationError) {
            switch try notifications.handle(body: request.body) {
            case .acted(let event, let userID):
                services.record(Self.auditEvent[event.kind] ?? "upstream.apple_notification", userID: userID, ip: request.clientIP,
                                details: ["connection": event.connection])
                services.logger.info("apple_notification", ["event": .string(event.kind.rawValue), "connection": .string(event.connection),
                                                             "user_id": .string(userID)])
            case .unknownSubject(let event):
                services.logger.warning("apple_notification_unknown_subject", ["event": .string(event.kind.rawValue),
                                                                              "connection": .string(event.connection)])
            }
            return reply(200, ["status": .string("ok")])
        } catch {
            let status: Int
            switch error {
            case .invalid: status = 400
            case .unavailable: status = 503
            }
            services.logger.warning("apple_notification_refused", ["request_id": .string(request.requestID), "ip": .string(request.clientIP),
                                                                  "error": .string(error.description)])
            return reply(status, ["error": .string(status == 400 ? "invalid_request" : "temporarily_unavailable")])
        }
    }

    private func reply(_ status: Int, _ object: [String: JSONValue]) -> HTTPResponse {
        var response = HTTPResponse.json((try? JSONValue.object(object).jsonBytes()) ?? [], status: status)
        SecurityHeaders.noStore(&response)
        return response
    }
}
