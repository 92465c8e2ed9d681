import FoundationEssentials
import Model

/// Auth0's Management API audience `{issuer}api/v2/`, built in: any application may ask
/// `/authorize` (or a password grant) for it, for its signed-in user and without an operator's
/// grant, with the current-user scopes below; no other scope of it is ever granted. Its tokens
/// open `GET|PATCH|DELETE /api/v2/users/{own id}` (Auth0.swift 2.x `Auth0.users(token:)`, Auth0.Android
/// `UsersAPIClient`).
public enum ManagementAPI {
    public static let readCurrentUser = "read:current_user"
    public static let updateCurrentUserMetadata = "update:current_user_metadata"
    public static let createCurrentUserMetadata = "create:current_user_metadata"
    public static let deleteCurrentUserMetadata = "delete:current_user_metadata"
    /// Delete one's own account (`DELETE /api/v2/users/{own id}`, App Store guideline 5.1.1(v)).
    public static let deleteCurrentUser = "delete:current_user"
    /// A machine-to-machine application's scope to delete any user; granted only through a client
    /// grant of an API an operator registers with the identifier `{issuer}api/v2/`.
    public static let deleteUsers = "delete:users"

    public static let userScopes = [readCurrentUser, updateCurrentUserMetadata, createCurrentUserMetadata, deleteCurrentUserMetadata,
                                    deleteCurrentUser]

    public static func identifier(issuer: String) -> String { issuer + "api/v2/" }

    /// The API as the scope phase and the minter see it (RS256: what Auth0's SDKs verify).
    public static func api(issuer: String) -> API {
        API(apiID: "gatehouse-management", identifier: identifier(issuer: issuer), name: "Gatehouse Management API (current user)",
            scopes: userScopes, tokenLifetime: 86_400, signingAlgorithm: "RS256", createdAt: Date(timeIntervalSince1970: 0))
    }
}
