import HTTP
import JOSE
import OIDC

/// `POST /dbconnections/change_password` (`{email, connection, client_id}`): 200 with Auth0's text
/// whether or not the address is registered; a registered one gets a reset link and a code.
struct ChangePasswordEndpoint: Sendable {
    let services: Services
    let selfService: SelfService

    /// Auth0's answer, which SDKs show as is.
    static let sentText = "We've just sent you an email to reset your password."

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        var context = RequestContext(request)
        defer { services.record(context) }
        var clientID: String?
        do throws(AccountError) {
            let body = try AccountJSON.body(request)
            let client = try AccountJSON.client(body, services: services)
            clientID = client.clientID
            if let connection = try AccountJSON.string(body, "connection"), connection != selfService.connection {
                throw .badConnection(selfService.connection)
            }
            guard let email = try AccountJSON.string(body, "email") else { throw .invalidRequest("email is required") }
            try selfService.requestPasswordReset(email: email, client: client, locale: context.mailLocale, link: true, context: &context)
            var response = HTTPResponse(status: 200, body: Array(Self.sentText.utf8))
            response.headers.set("Content-Type", "text/plain; charset=utf-8")
            SecurityHeaders.noStore(&response)
            ClientCORS.apply(&response, request: request, clientID: clientID, services: services)
            return response
        } catch {
            var response = AccountJSON.error(error, style: .database, request: request, services: services)
            ClientCORS.apply(&response, request: request, clientID: clientID, services: services)
            return response
        }
    }
}
