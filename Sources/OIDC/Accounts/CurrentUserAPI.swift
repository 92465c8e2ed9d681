import FoundationEssentials
import JOSE
import Model

/// A refusal of `/api/v2/…` in the Management API's shape `{statusCode, error, message, errorCode}`.
public struct ManagementAPIError: Error, Sendable, Equatable {
    public var status: Int
    public var errorCode: String
    public var message: String
    public var detail: String?

    public init(status: Int, errorCode: String, message: String, detail: String? = nil) {
        self.status = status
        self.errorCode = errorCode
        self.message = message
        self.detail = detail
    }

    /// The HTTP reason phrase the `error` member carries.
    public var error: String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 503: "Service Unavailable"
        default: "Internal Server Error"
        }
    }
}

/// The current user's own profile over the Management API path (`GET|PATCH /api/v2/users/{id}`),
/// for an access token whose audience is `ManagementAPI.identifier` and whose `sub` is `{id}`.
public struct CurrentUserAPI: Sendable {
    public let issuer: String
    public let users: any UserStore
    public let clock: any Clock
    /// Checks a bearer JWT for an audience (`AccessTokenValidator.validate`, bound by the web layer to the key ring).
    public let validate: @Sendable (_ bearer: String, _ audience: String) throws(OAuthError) -> AccessTokenGrant

    public init(issuer: String, users: any UserStore, clock: any Clock,
                validate: @escaping @Sendable (_ bearer: String, _ audience: String) throws(OAuthError) -> AccessTokenGrant) {
        self.issuer = issuer
        self.users = users
        self.clock = clock
        self.validate = validate
    }

    /// The token's grant, when it is for this API, names `userID` as its subject and has one of `scopes`.
    public func authorize(bearer: String?, userID: String, anyOf scopes: [String]) throws(ManagementAPIError) -> AccessTokenGrant {
        guard let bearer else { throw ManagementAPIError(status: 401, errorCode: "invalid_token", message: "Missing authentication") }
        let grant: AccessTokenGrant
        do {
            grant = try validate(bearer, ManagementAPI.identifier(issuer: issuer))
        } catch {
            if error.code == .temporarilyUnavailable {
                throw ManagementAPIError(status: 503, errorCode: "temporarily_unavailable", message: "Try again shortly.", detail: error.detail)
            }
            throw ManagementAPIError(status: 401, errorCode: "invalid_token", message: "Invalid token", detail: error.detail)
        }
        guard grant.user.userID == userID else {
            throw ManagementAPIError(status: 403, errorCode: "insufficient_scope",
                                     message: "This token may only be used for its own user (\(grant.user.userID)).")
        }
        guard grant.grantedScopes.contains(where: scopes.contains) else {
            throw ManagementAPIError(status: 403, errorCode: "insufficient_scope",
                                     message: "Insufficient scope, expected any of: \(scopes.joined(separator: ","))")
        }
        return grant
    }

    /// Auth0's user object.
    public static func profile(_ user: User) -> [String: JSONValue] {
        var object: [String: JSONValue] = [
            "user_id": .string(user.userID), "email": .string(user.email), "email_verified": .bool(user.emailVerified),
            "created_at": .string(UserClaims.isoTimestamp(user.createdAt)), "updated_at": .string(UserClaims.isoTimestamp(user.updatedAt)),
            "logins_count": .integer(Int64(user.loginsCount)), "blocked": .bool(user.blocked),
            "user_metadata": .object(user.userMetadata.mapValues(JSONValue.string)),
            "identities": .array([.object(["connection": .string("Username-Password-Authentication"), "provider": .string("auth0"),
                                           "user_id": .string(String(user.userID.split(separator: "|").last ?? "")),
                                           "isSocial": .bool(false)])]),
            "name": .string(user.name ?? user.email),
            "nickname": .string(user.nickname ?? String(user.email.split(separator: "@").first ?? "")),
        ]
        object["given_name"] = user.givenName.map(JSONValue.string)
        object["family_name"] = user.familyName.map(JSONValue.string)
        object["picture"] = user.picture.map(JSONValue.string)
        object["last_login"] = user.lastLoginAt.map { .string(UserClaims.isoTimestamp($0)) }
        return object
    }

    /// `PATCH` with `{"user_metadata": {…}}`, merged as Auth0 merges it: each top-level key replaced,
    /// a `null` deleting it. Only `user_metadata` may be changed with the current-user scopes.
    public func patch(_ userID: String, body: [String: JSONValue]) throws(ManagementAPIError) -> User {
        let others = body.keys.filter { $0 != "user_metadata" }
        guard others.isEmpty else {
            throw ManagementAPIError(status: 400, errorCode: "invalid_body",
                                     message: "Only user_metadata may be changed with this token (not \(others.sorted().joined(separator: ", "))).")
        }
        guard case .object(let changes)? = body["user_metadata"] else {
            throw ManagementAPIError(status: 400, errorCode: "invalid_body", message: "user_metadata must be an object.")
        }
        do {
            guard var user = try users.find(userID: userID) else {
                throw ManagementAPIError(status: 404, errorCode: "inexistent_user", message: "The user does not exist.")
            }
            for (key, value) in changes {
                switch value {
                case .null: user.userMetadata[key] = nil
                case .string(let text): user.userMetadata[key] = text
                default:
                    throw ManagementAPIError(status: 400, errorCode: "invalid_body", message: "user_metadata values must be strings or null.")
                }
            }
            do {
                try UserMetadata.validate(user.userMetadata)
            } catch {
                throw ManagementAPIError(status: 400, errorCode: "invalid_body", message: error.description)
            }
            user.updatedAt = clock.now
            try users.update(user)
            return user
        } catch let error as ManagementAPIError {
            throw error
        } catch let error as StorageError {
            throw ManagementAPIError(storage: error)
        } catch {
            throw ManagementAPIError(status: 500, errorCode: "internal", message: "Internal error")
        }
    }

    public func read(_ userID: String) throws(ManagementAPIError) -> User {
        let found: User?
        do { found = try users.find(userID: userID) } catch { throw ManagementAPIError(storage: error) }
        guard let found else { throw ManagementAPIError(status: 404, errorCode: "inexistent_user", message: "The user does not exist.") }
        return found
    }
}

extension ManagementAPIError {
    init(storage error: StorageError) {
        if case .unavailable = error {
            self.init(status: 503, errorCode: "temporarily_unavailable", message: "Try again shortly.", detail: "\(error)")
        } else {
            self.init(status: 500, errorCode: "internal", message: "Internal error", detail: "\(error)")
        }
    }
}
