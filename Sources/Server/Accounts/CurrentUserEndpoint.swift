import HTTP
import JOSE
import Logging
import Model
import OIDC

/// `GET|PATCH /api/v2/users/{id}` for the signed-in user's own profile (`CurrentUserAPI`).
struct CurrentUserEndpoint: Sendable {
    let services: Services
    let api: CurrentUserAPI

    static let pathPrefix = "api/v2/users/"

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let userID = String(request.path.dropFirst(services.issuer.path.count + Self.pathPrefix.count))
        var clientID: String?
        do throws(ManagementAPIError) {
            let bearer = AccessTokenValidator.bearerToken(fromAuthorization: request.headers["Authorization"])
            switch request.method {
            case "GET", "HEAD":
                let grant = try api.authorize(bearer: bearer, userID: userID, anyOf: [ManagementAPI.readCurrentUser])
                clientID = grant.clientID
                return respond(CurrentUserAPI.profile(try api.read(userID)), request: request, clientID: clientID)
            default:
                let grant = try api.authorize(bearer: bearer, userID: userID,
                                              anyOf: [ManagementAPI.updateCurrentUserMetadata, ManagementAPI.createCurrentUserMetadata])
                clientID = grant.clientID
                guard RequestParameters.mediaType(request.headers["Content-Type"]) == "application/json",
                      case .object(let body)? = try? JSONValue(parsing: request.body) else {
                    throw ManagementAPIError(status: 400, errorCode: "invalid_body", message: "The body must be a JSON object.")
                }
                let user = try api.patch(userID, body: body)
                services.record("user.metadata_updated", userID: user.userID, clientID: clientID, ip: request.clientIP)
                return respond(CurrentUserAPI.profile(user), request: request, clientID: clientID)
            }
        } catch {
            return AccountJSON.managementError(error, request: request, clientID: clientID, services: services)
        }
    }

    private func respond(_ object: [String: JSONValue], request: HTTPRequest, clientID: String?) -> HTTPResponse {
        var response = AccountJSON.success(object)
        ClientCORS.apply(&response, request: request, clientID: clientID, services: services)
        return response
    }
}
