import HTTP
import JOSE
import OIDC

/// `POST /passwordless/start` (`{email, connection: "email", send, client_id}`): a six-digit code
/// by email, then `grant_type=http://auth0.com/oauth/grant-type/passwordless/otp`. `send` may be
/// `code`, `link`, `link_ios` or `link_android`; Gatehouse always sends a code (codes work in any
/// browser and mail app, README "Accounts"). The answer is the same for every address.
struct PasswordlessStartEndpoint: Sendable {
    let services: Services
    let selfService: SelfService

    static let sendModes: Set<String> = ["code", "link", "link_ios", "link_android"]

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        var context = RequestContext(request)
        defer { services.record(context) }
        var clientID: String?
        do throws(AccountError) {
            let body = try AccountJSON.body(request)
            let client = try AccountJSON.client(body, services: services)
            clientID = client.clientID
            guard let connection = try AccountJSON.string(body, "connection"), connection == "email" else {
                throw AccountError(code: "bad.connection", description: "Only the email connection is available.", name: "BadRequestError")
            }
            let send = try AccountJSON.string(body, "send") ?? "code"
            guard Self.sendModes.contains(send) else { throw .invalidRequest("send must be code, link, link_ios or link_android") }
            guard let email = try AccountJSON.string(body, "email") else { throw .invalidRequest("email is required") }
            try selfService.startPasswordless(email: email, client: client, locale: context.mailLocale, context: &context)
            var response = AccountJSON.success(["email": .string(email.trimmingWhitespace()), "email_verified": .bool(false)])
            ClientCORS.apply(&response, request: request, clientID: clientID, services: services)
            return response
        } catch {
            var response = AccountJSON.error(error, style: .oauth, request: request, services: services)
            ClientCORS.apply(&response, request: request, clientID: clientID, services: services)
            return response
        }
    }
}
