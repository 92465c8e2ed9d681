import FoundationEssentials
import Model

/// `DELETE /api/v2/users/{id}` (README "Account deletion"; App Store guideline 5.1.1(v)), in the
/// Management API's shapes: a user deletes their own account with a token for `{issuer}api/v2/`
/// holding `delete:current_user` and a login at most `maxAge` old (its `auth_time`), so a stolen
/// long-lived token cannot erase anyone; an operator's machine-to-machine application deletes any
/// user with `delete:users`. The deleter does the rest in one transaction (`AccountDeleter`).
public struct AccountDeletionAPI: Sendable {
    public let issuer: String
    public let clock: any Clock
    /// How recent the user's login must be.
    public let maxAge: TimeInterval
    public let deleter: any AccountDeleter
    /// A user's access token for an audience (`AccessTokenValidator.validate`).
    public let validateUser: @Sendable (_ bearer: String, _ audience: String) throws(OAuthError) -> AccessTokenGrant
    /// A client_credentials token for an audience, nil when it is not one (`AccessTokenValidator.validateMachine`).
    public let validateMachine: @Sendable (_ bearer: String, _ audience: String) throws(OAuthError) -> MachineTokenGrant?

    public init(issuer: String, clock: any Clock, maxAge: TimeInterval, deleter: any AccountDeleter,
                validateUser: @escaping @Sendable (_ bearer: String, _ audience: String) throws(OAuthError) -> AccessTokenGrant,
                validateMachine: @escaping @Sendable (_ bearer: String, _ audience: String) throws(OAuthError) -> MachineTokenGrant?) {
        self.issuer = issuer
        self.clock = clock
        self.maxAge = maxAge
        self.deleter = deleter
        self.validateUser = validateUser
        self.validateMachine = validateMachine
    }

    /// Who asks.
    public enum Caller: Sendable, Equatable {
        case user(AccessTokenGrant)
        case machine(MachineTokenGrant)

        public var clientID: String {
            switch self {
            case .user(let grant): grant.clientID
            case .machine(let grant): grant.clientID
            }
        }
    }

    /// The message a too-old login gets: the app signs the user in again and retries.
    public func reauthenticationMessage() -> String {
        "Deleting the account needs a recent login: sign the user in again (for example with max_age=0) "
            + "and retry within \(Int(maxAge / 60)) minutes."
    }

    /// The caller, when its token may delete `userID`.
    public func authorize(bearer: String?, userID: String) throws(ManagementAPIError) -> Caller {
        guard let bearer else { throw ManagementAPIError(status: 401, errorCode: "invalid_token", message: "Missing authentication") }
        let audience = ManagementAPI.identifier(issuer: issuer)
        if let machine = try checked({ () throws(OAuthError) in try validateMachine(bearer, audience) }) {
            guard machine.scopes.contains(ManagementAPI.deleteUsers) else {
                throw ManagementAPIError(status: 403, errorCode: "insufficient_scope",
                                         message: "Insufficient scope, expected any of: \(ManagementAPI.deleteUsers)")
            }
            return .machine(machine)
        }
        let grant = try checked({ () throws(OAuthError) in try validateUser(bearer, audience) })
        guard grant.user.userID == userID else {
            throw ManagementAPIError(status: 403, errorCode: "insufficient_scope",
                                     message: "This token may only be used for its own user (\(grant.user.userID)).")
        }
        guard grant.grantedScopes.contains(ManagementAPI.deleteCurrentUser) else {
            throw ManagementAPIError(status: 403, errorCode: "insufficient_scope",
                                     message: "Insufficient scope, expected any of: \(ManagementAPI.deleteCurrentUser)")
        }
        guard let authTime = grant.authTime, clock.now.timeIntervalSince(authTime) <= maxAge else {
            throw ManagementAPIError(status: 403, errorCode: "login_required", message: reauthenticationMessage(),
                                     detail: grant.authTime.map { "auth_time \(Int($0.timeIntervalSince1970))" } ?? "no auth_time")
        }
        return .user(grant)
    }

    /// A token check's refusal in the Management API's shape.
    private func checked<T>(_ body: () throws(OAuthError) -> T) throws(ManagementAPIError) -> T {
        do {
            return try body()
        } catch {
            if error.code == .temporarilyUnavailable {
                throw ManagementAPIError(status: 503, errorCode: "temporarily_unavailable", message: "Try again shortly.", detail: error.detail)
            }
            throw ManagementAPIError(status: 401, errorCode: "invalid_token", message: "Invalid token", detail: error.detail)
        }
    }

    /// Deletes the account; an unknown user is 404.
    public func delete(userID: String) throws(ManagementAPIError) -> DeletedAccount {
        do {
            return try deleter.deleteAccount(userID: userID, at: clock.now)
        } catch {
            if case .notFound = error { throw ManagementAPIError(status: 404, errorCode: "inexistent_user", message: "The user does not exist.") }
            throw ManagementAPIError(storage: error)
        }
    }
}
