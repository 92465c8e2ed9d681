import HTTP
import JOSE
import Logging
import Model
import OIDC

/// The account endpoints' bodies: Auth0 accepts JSON and form bodies alike (`auth0-compat.md` §0),
/// and answers refusals in its database-connection shape `{code, description, name}` or, for
/// `/passwordless/start`, in the OAuth shape `{error, error_description}`.
enum AccountJSON {
    enum Style { case database, oauth }

    /// A JSON object body (nested values kept), or a form body as an object of strings.
    static func body(_ request: HTTPRequest) throws(AccountError) -> [String: JSONValue] {
        guard request.query.isEmpty else { throw .invalidRequest("Send parameters in the request body, not the query string.") }
        switch RequestParameters.mediaType(request.headers["Content-Type"]) {
        case "application/json":
            guard case .object(let object)? = try? JSONValue(parsing: request.body) else {
                throw .invalidRequest("The JSON body must be an object.")
            }
            return object
        case "application/x-www-form-urlencoded":
            guard let text = String(validating: request.body, as: UTF8.self), let pairs = try? FormCodec.decode(text) else {
                throw .invalidRequest("The form body is not validly encoded.")
            }
            var object: [String: JSONValue] = [:]
            for (name, value) in pairs where object[name] == nil { object[name] = .string(value) }
            return object
        default:
            throw .invalidRequest("Send parameters as application/json or application/x-www-form-urlencoded.")
        }
    }

    /// A string member; numbers and booleans are not accepted where text is due.
    static func string(_ object: [String: JSONValue], _ name: String) throws(AccountError) -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw .invalidRequest("\(name) must be a string")
        }
    }

    /// A flat object of strings (`user_metadata`); in a form body, its JSON text.
    static func stringMap(_ object: [String: JSONValue], _ name: String) throws(AccountError) -> [String: String] {
        var value = object[name]
        if case .string(let text)? = value {
            guard let parsed = try? JSONValue(parsing: Array(text.utf8)) else { throw .invalidRequest("\(name) must be an object of strings") }
            value = parsed
        }
        switch value {
        case nil, .null?: return [:]
        case .object(let members)?:
            var result: [String: String] = [:]
            for (key, member) in members {
                guard case .string(let text) = member else { throw .invalidRequest("\(name) must be an object of strings") }
                result[key] = text
            }
            return result
        default:
            throw .invalidRequest("\(name) must be an object of strings")
        }
    }

    static func success(_ object: [String: JSONValue], status: Int = 200) -> HTTPResponse {
        var response = HTTPResponse.json((try? JSONValue.object(object).jsonBytes()) ?? Array("{}".utf8), status: status)
        SecurityHeaders.noStore(&response)
        return response
    }

    static func error(_ error: AccountError, style: Style, request: HTTPRequest, services: Services) -> HTTPResponse {
        if error.status >= 500 || error.detail != nil {
            services.logger.log(error.status >= 500 ? .error : .info, "account_request_refused",
                                ["request_id": .string(request.requestID), "path": .string(request.path), "code": .string(error.code),
                                 "detail": .string(error.detail ?? error.description)])
        }
        var object: [String: JSONValue]
        switch style {
        case .database:
            object = ["code": .string(error.code), "description": .string(error.description)]
            if let name = error.name { object["name"] = .string(name) }
            object["statusCode"] = .integer(Int64(error.status))
        case .oauth:
            object = ["error": .string(error.code), "error_description": .string(error.description)]
        }
        var response = success(object, status: error.status)
        if let retryAfter = error.retryAfter { response.headers.set("Retry-After", String(retryAfter)) }
        return response
    }

    /// A refusal of `/api/v2/…` in the Management API's shape `{statusCode, error, message, errorCode}`.
    static func managementError(_ error: ManagementAPIError, request: HTTPRequest, clientID: String?, services: Services) -> HTTPResponse {
        if let detail = error.detail {
            services.logger.info("management_api_refused", ["request_id": .string(request.requestID), "detail": .string(detail)])
        }
        var response = success([
            "statusCode": .integer(Int64(error.status)), "error": .string(error.error), "message": .string(error.message),
            "errorCode": .string(error.errorCode),
        ], status: error.status)
        if error.status == 401 { response.headers.set("WWW-Authenticate", "Bearer error=\"invalid_token\"") }
        ClientCORS.apply(&response, request: request, clientID: clientID, services: services)
        return response
    }

    /// The application a request names by `client_id`: unknown or missing is `invalid_client`.
    static func client(_ object: [String: JSONValue], services: Services) throws(AccountError) -> Client {
        guard let clientID = try string(object, "client_id"), !clientID.isEmpty else {
            throw AccountError(code: "invalid_request", description: "client_id is required", name: "BadRequestError")
        }
        let found: Client?
        do { found = try services.clients.find(clientID: clientID) } catch { throw AccountError(storage: error) }
        guard let found else {
            throw AccountError(code: "invalid_client", description: "Unknown client.", name: "UnauthorizedError", status: 401,
                               detail: "client_id \(clientID)")
        }
        return found
    }
}

extension RequestContext {
    /// The request's address, device and languages.
    init(_ request: HTTPRequest) {
        self.init(clientIP: request.clientIP, deviceName: request.headers["User-Agent"].map { String($0.prefix(200)) })
        acceptLanguage = request.headers["Accept-Language"].map { String($0.prefix(256)) }
    }

    /// The best language for a message the request causes.
    var mailLocale: String { LocalePreference.ordered(uiLocales: nil, acceptLanguage: acceptLanguage).first ?? "en" }
}
