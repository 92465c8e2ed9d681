import HTTP
import Logging
import Model
import OIDC

/// `DELETE /api/v2/users/{id}` (`AccountDeletionAPI`): 204 once the account is gone; its Apple
/// tokens are revoked by the background sender, woken here.
struct AccountDeletionEndpoint: Sendable {
    let services: Services
    let api: AccountDeletionAPI
    /// Wakes the revocation sender.
    let queued: @Sendable () -> Void

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let userID = String(request.path.dropFirst(services.issuer.path.count + CurrentUserEndpoint.pathPrefix.count))
        var clientID: String?
        do throws(ManagementAPIError) {
            let caller = try api.authorize(bearer: AccessTokenValidator.bearerToken(fromAuthorization: request.headers["Authorization"]),
                                           userID: userID)
            clientID = caller.clientID
            // Events already queued for the user are written now, so the deletion rewrites them too.
            services.auditRecorder.flush()
            let deleted = try api.delete(userID: userID)
            let by: String = if case .machine = caller { "machine" } else { "user" }
            services.auditRecorder.record(AuditEvent(
                time: services.clock.now, event: "user.deleted", userID: deleted.pseudonym, clientID: caller.clientID, ip: request.clientIP,
                actor: by == "user" ? "user" : "client", details: [
                    "by": by, "identities": String(deleted.identities), "ended_sessions": String(deleted.sessions),
                    "revoked_grants": String(deleted.grants), "upstream_revocations_queued": String(deleted.revocationsQueued),
                ]))
            if deleted.revocationsQueued > 0 { queued() }
            var response = HTTPResponse(status: 204)
            SecurityHeaders.noStore(&response)
            ClientCORS.apply(&response, request: request, clientID: clientID, services: services)
            return response
        } catch {
            return AccountJSON.managementError(error, request: request, clientID: clientID, services: services)
        }
    }
}
