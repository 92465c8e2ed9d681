import FoundationEssentials
import JOSE
import Model

/// Who a verified upstream login is (README "Upstream connections", as Auth0): the user its identity
/// is already linked to; else, on a first login, an existing user with the same email — only when
/// the email is verified upstream, the connection has `--link-by-verified-email`, and exactly one
/// existing user with a verified email matches —; otherwise a new user of the connection, with the
/// user id `{strategy prefix}|{connection}|{sub}` (`oidc|corp|…`, `google-oauth2|google|…`).
public enum UpstreamLinking {
    public enum Decision: Sendable, Equatable {
        /// A returning identity.
        case existing(userID: String)
        /// First login: link the identity to this user.
        case link(userID: String)
        /// First login: create this user with the identity.
        case create(User)
    }

    /// The email claims, accepting Apple's string booleans ("true"/"false").
    public static func email(_ claims: [String: JSONValue]) -> (address: String, verified: Bool)? {
        guard let address = claims["email"]?.stringValue, !address.isEmpty, address.utf8.count <= 254 else { return nil }
        let verified: Bool = switch claims["email_verified"] {
        case .bool(let flag): flag
        case .string(let text): text == "true"
        default: false
        }
        return (address, verified)
    }

    /// - Parameters:
    ///   - linked: the identity's user, when it is already linked.
    ///   - candidates: the users with the token's email, any connection (`IdentityStore.users(email:)`).
    public static func decide(connection: UpstreamConnection, claims: [String: JSONValue], linked: String?,
                              candidates: [User], now: Date) -> Decision {
        if let linked { return .existing(userID: linked) }
        let subject = claims["sub"]?.stringValue ?? ""
        let email = email(claims)
        if connection.linkByVerifiedEmail, let email, email.verified {
            let verified = candidates.filter { $0.emailVerified && User.emailKey($0.email) == User.emailKey(email.address) }
            if verified.count == 1 { return .link(userID: verified[0].userID) }
        }
        let user = User(userID: connection.strategy.userIDPrefix + "|" + connection.name + "|" + subject,
                        email: email?.address ?? "", emailVerified: email?.verified ?? false,
                        name: claims["name"]?.stringValue, givenName: claims["given_name"]?.stringValue,
                        familyName: claims["family_name"]?.stringValue, nickname: claims["nickname"]?.stringValue,
                        picture: claims["picture"]?.stringValue, createdAt: now, connection: connection.name)
        return .create(user)
    }
}
