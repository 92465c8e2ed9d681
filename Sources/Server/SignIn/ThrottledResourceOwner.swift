import OIDC

/// The password grants' credential check: the login page's password check, throttling,
/// audit events and metrics, for the address the token request came from.
struct ThrottledResourceOwner: ResourceOwnerAuthenticator {
    let services: Services
    let ip: String

    func authenticate(email: String, password: String, clientID: String) -> ResourceOwnerOutcome {
        do {
            switch try services.throttle.check(email: email, ip: ip) {
            case .addressLocked:
                services.record("login.throttled", clientID: clientID, ip: ip, details: ["scope": "ip", "channel": "password_grant"])
                services.metrics.recordLogin(result: "throttled")
                return .throttled
            case .pairLocked:
                // The same answer, after the same hashing time, as a wrong password (negative-tests G03).
                _ = try services.passwords.authenticate(email: "", password: password)
                services.record("login.throttled", clientID: clientID, ip: ip, details: ["scope": "account", "channel": "password_grant"])
                services.metrics.recordLogin(result: "throttled")
                return .failure
            case .allowed:
                break
            }
            switch try services.passwords.authenticate(email: email, password: password) {
            case .failure(let reason, let userID):
                try services.throttle.recordFailure(email: email, ip: ip)
                services.record("login.failed", userID: userID, clientID: clientID, ip: ip,
                                details: ["reason": reason, "channel": "password_grant"])
                services.metrics.recordLogin(result: "failure")
                return .failure
            case .success(let user):
                try services.throttle.recordSuccess(email: email, ip: ip)
                services.record("login.succeeded", userID: user.userID, clientID: clientID, ip: ip, details: ["channel": "password_grant"])
                services.metrics.recordLogin(result: "success")
                return .success(user)
            }
        } catch {
            return .unavailable(error.description)
        }
    }
}
