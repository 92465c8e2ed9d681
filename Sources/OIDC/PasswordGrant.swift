import Crypto
import FoundationEssentials
import Model

/// Checks a user's email and password for the resource-owner grants; the web layer implements it
/// with the same password check and throttling as the login page.
public protocol ResourceOwnerAuthenticator: Sendable {
    func authenticate(email: String, password: String, clientID: String) -> ResourceOwnerOutcome
}

public enum ResourceOwnerOutcome: Sendable, Equatable {
    case success(User)
    /// Wrong email, wrong password or a blocked user: one answer for all.
    case failure
    /// Too many recent failures for this email and address.
    case throttled
    case unavailable(String)
}

/// Auth0's resource-owner grants for applications with their own native login form:
/// `password` and `http://auth0.com/oauth/grant-type/password-realm`. Off unless the
/// application lists the grant; wrong credentials get Auth0's exact answer, which
/// Auth0.swift recognises: `invalid_grant` "Wrong email or password.".
public struct PasswordGrantPolicy: Sendable {
    public let authenticator: any ResourceOwnerAuthenticator
    /// The user database's name; a `realm` must equal it.
    public let connection: String

    public init(authenticator: any ResourceOwnerAuthenticator, connection: String) {
        self.authenticator = authenticator
        self.connection = connection
    }

    public static let wrongCredentials = "Wrong email or password."
}

extension TokenEndpoint {
    func passwordGrant(_ request: TokenRequest, client: AuthenticatedClient, realmRequired: Bool) throws(OAuthError) -> TokenIssuance {
        guard let policy = passwordGrants else {
            throw OAuthError(.unsupportedGrantType, "unsupported grant_type", detail: "password grants are not configured")
        }
        guard let username = request["username"], !username.isEmpty, let password = request["password"], !password.isEmpty else {
            throw OAuthError(.invalidRequest, "username and password are required")
        }
        if realmRequired || request["realm"] != nil {
            guard let realm = request["realm"], Array(realm.utf8) == Array(policy.connection.utf8) else {
                throw OAuthError(.invalidRequest, "unknown realm; use \(policy.connection)", detail: "realm \(request["realm"] ?? "(none)")")
            }
        }
        let user: User
        switch policy.authenticator.authenticate(email: username, password: password, clientID: client.client.clientID) {
        case .success(let found): user = found
        case .failure: throw OAuthError(.invalidGrant, PasswordGrantPolicy.wrongCredentials)
        case .throttled:
            throw OAuthError(.tooManyAttempts, "Too many failed attempts. Try again later.")
        case .unavailable(let detail):
            throw OAuthError(.temporarilyUnavailable, "the service is temporarily unavailable", detail: detail)
        }
        let now = clock.now
        let scopes = AuthorizationRequest.canonicalScopes(request["scope"] ?? "openid")
        let grant = Grant(grantID: Random.token(bytes: 16), clientID: client.client.clientID, userID: user.userID, sessionID: nil,
                          scope: scopes.joined(separator: " "), audience: request["audience"], authTime: now, createdAt: now)
        do {
            try grants.create(grant)
        } catch {
            throw OAuthError(storage: error)
        }
        var refreshToken: String?
        if issuesRefreshToken(scopes: scopes, client: client.client) {
            refreshToken = try issueFirstRefreshToken(grant: grant, client: client.client, userID: user.userID, now: now)
        }
        return TokenIssuance(client: client.client, user: user, grant: grant, scopes: scopes, audience: request["audience"],
                             nonce: nil, authTime: now, sessionID: nil, refreshToken: refreshToken)
    }
}
