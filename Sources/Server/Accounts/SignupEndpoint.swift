import HTTP
import JOSE
import Model
import OIDC

/// `POST /dbconnections/signup` as Auth0.swift's `signup` and Auth0.Android's `createUser` call it:
/// `{email, password, connection, client_id, username?, user_metadata?, name?, …}` →
/// `{_id, email, email_verified: false}`; refusals in Auth0's `{code, description, name}`.
struct SignupEndpoint: Sendable {
    let services: Services
    let selfService: SelfService

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        var context = RequestContext(request)
        defer { services.record(context) }
        var clientID: String?
        do throws(AccountError) {
            let body = try AccountJSON.body(request)
            let client = try AccountJSON.client(body, services: services)
            clientID = client.clientID
            guard let email = try AccountJSON.string(body, "email"), let password = try AccountJSON.string(body, "password") else {
                throw .invalidRequest("email and password are required")
            }
            let signup = SelfService.SignupRequest(
                email: email, password: password, connection: try AccountJSON.string(body, "connection"),
                userMetadata: try AccountJSON.stringMap(body, "user_metadata"), name: try AccountJSON.string(body, "name"),
                givenName: try AccountJSON.string(body, "given_name"), familyName: try AccountJSON.string(body, "family_name"),
                nickname: try AccountJSON.string(body, "nickname"), picture: try AccountJSON.string(body, "picture"))
            let user = try selfService.signup(signup, client: client, locale: context.mailLocale, context: &context)
            var object: [String: JSONValue] = ["_id": .string(String(user.userID.split(separator: "|").last ?? "")),
                                               "email": .string(user.email), "email_verified": .bool(user.emailVerified)]
            if let username = try AccountJSON.string(body, "username") { object["username"] = .string(username) }
            var response = AccountJSON.success(object)
            ClientCORS.apply(&response, request: request, clientID: clientID, services: services)
            return response
        } catch {
            var response = AccountJSON.error(error, style: .database, request: request, services: services)
            ClientCORS.apply(&response, request: request, clientID: clientID, services: services)
            return response
        }
    }
}
