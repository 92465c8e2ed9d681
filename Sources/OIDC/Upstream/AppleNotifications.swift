import Crypto
import FoundationEssentials
import JOSE
import Model

/// One of Apple's server-to-server notifications (README "Sign in with Apple"): a JWT Apple signs
/// with its ID-token keys, whose `events` claim (a JSON string) says what happened to a user's
/// Apple ID for this app.
public struct AppleNotification: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// The user stopped using Sign in with Apple with this app.
        case consentRevoked = "consent-revoked"
        /// The user deleted their Apple ID.
        case accountDelete = "account-delete"
        /// The user stopped (or resumed) mail forwarding from their private-relay address.
        case emailDisabled = "email-disabled"
        case emailEnabled = "email-enabled"
    }

    public var connection: String
    public var kind: Kind
    /// The Apple `sub` the event is about.
    public var subject: String
    public var email: String?
    public var isPrivateEmail: Bool?
}

/// Why a notification was refused (400: nothing changes) or could not be checked now (503: Apple retries).
public enum AppleNotificationError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)
    case unavailable(String)

    public var description: String {
        switch self {
        case .invalid(let why): "invalid Apple notification: \(why)"
        case .unavailable(let why): "Apple notification not checked: \(why)"
        }
    }
}

/// Verifies and acts on Apple's notifications (`POST {issuer}login/apple/notifications`): the
/// connection is the `apple` one whose issuer is the token's `iss` and whose Services ID or bundle
/// ids include its `aud`; the signature is checked with that connection's JWKS through the shared
/// key cache (RS256/ES256 only, the algorithm the key's, as for ID tokens); `iat` must be fresh.
/// Consent revoked and account deleted end the identity's user's sessions and refresh tokens and
/// forget the stored Apple refresh token; email disabled/enabled is recorded on the identity.
public struct AppleNotifications: Sendable {
    public let connections: any ConnectionStore
    public let identities: any IdentityStore
    public let tokens: any UpstreamTokenStore
    public let keys: UpstreamKeyCache
    public let clock: any Clock
    /// Ends a user's sessions, grants and refresh tokens (`SQLiteUserStore.revokeAccess`).
    public let endAccess: @Sendable (_ userID: String, _ reason: String) throws(StorageError) -> Void
    /// Clock skew tolerated on `iat`.
    public var leeway: TimeInterval = 60
    /// A notification older than this is refused, so a captured one cannot be replayed later.
    public var maximumAge: TimeInterval = 3600

    public init(connections: any ConnectionStore, identities: any IdentityStore, tokens: any UpstreamTokenStore, keys: UpstreamKeyCache,
                clock: any Clock, endAccess: @escaping @Sendable (_ userID: String, _ reason: String) throws(StorageError) -> Void) {
        self.connections = connections
        self.identities = identities
        self.tokens = tokens
        self.keys = keys
        self.clock = clock
        self.endAccess = endAccess
    }

    /// What the notification changed.
    public enum Outcome: Sendable, Equatable {
        /// The identity's user, and what was done.
        case acted(AppleNotification, userID: String)
        /// No identity of that subject: nothing to do (answered 200 so Apple stops retrying).
        case unknownSubject(AppleNotification)
    }

    /// The body is `{"payload": "<JWT>"}`.
    public func handle(body: [UInt8]) throws(AppleNotificationError) -> Outcome {
        guard case .object(let object)? = try? JSONValue(parsing: body), let payload = object["payload"]?.stringValue else {
            throw .invalid("the body is not {\"payload\": JWT}")
        }
        let notification = try verify(payload)
        return try act(on: notification)
    }

    /// The verified notification.
    public func verify(_ payload: String) throws(AppleNotificationError) -> AppleNotification {
        // The connection is chosen by the unverified iss and aud; the signature then decides.
        guard let unverified = UpstreamIDTokenVerifier.unverifiedClaims(payload) else { throw .invalid("not a JWT") }
        let issuer = unverified["iss"]?.stringValue ?? ""
        let audience = unverified["aud"]?.stringValue ?? ""
        let all: [UpstreamConnection]
        do { all = try connections.list() } catch { throw .unavailable("connections: \(error)") }
        guard let connection = all.first(where: {
            $0.strategy == .apple && AppleEndpoints.issuer($0) == issuer && AppleEndpoints.clientIDs($0).contains(audience)
        }) else {
            throw .invalid("no apple connection has issuer \(issuer) and client id \(audience)")
        }
        let claims = try verifiedClaims(payload, jwksURL: AppleEndpoints.jwksURL(connection))
        guard claims["iss"]?.stringValue == issuer, claims["aud"]?.stringValue == audience else { throw .invalid("iss or aud changed") }
        let now = clock.now.timeIntervalSince1970
        guard let iat = UpstreamIDTokenVerifier.seconds(claims["iat"]) else { throw .invalid("iat missing") }
        guard iat <= now + leeway else { throw .invalid("iat is in the future") }
        guard now - iat <= maximumAge + leeway else { throw .invalid("iat is too old") }
        let eventsValue: JSONValue? = switch claims["events"] {
        case .string(let text)?: try? JSONValue(parsing: Array(text.utf8))
        case let other: other
        }
        guard case .object(let events)? = eventsValue else { throw .invalid("events is not a JSON object") }
        guard let type = events["type"]?.stringValue, let kind = AppleNotification.Kind(rawValue: type) else {
            throw .invalid("unknown event type \(events["type"]?.stringValue ?? "missing")")
        }
        guard let subject = events["sub"]?.stringValue, !subject.isEmpty else { throw .invalid("events.sub missing") }
        let privateEmail: Bool? = switch events["is_private_email"] {
        case .bool(let flag)?: flag
        case .string(let text)?: text == "true"
        default: nil
        }
        return AppleNotification(connection: connection.name, kind: kind, subject: subject, email: events["email"]?.stringValue,
                                 isPrivateEmail: privateEmail)
    }

    func act(on notification: AppleNotification) throws(AppleNotificationError) -> Outcome {
        do {
            guard let identity = try identities.find(connection: notification.connection, subject: notification.subject) else {
                return .unknownSubject(notification)
            }
            switch notification.kind {
            case .consentRevoked, .accountDelete:
                try endAccess(identity.userID, "apple " + notification.kind.rawValue)
                // Void at Apple already: nothing left to revoke when the account is deleted.
                try tokens.clearRefreshToken(connection: identity.connection, subject: identity.subject)
            case .emailDisabled, .emailEnabled:
                try tokens.setEmailForwarding(notification.kind == .emailEnabled, connection: identity.connection,
                                              subject: identity.subject, at: clock.now)
            }
            return .acted(notification, userID: identity.userID)
        } catch {
            throw .unavailable("storage: \(error)")
        }
    }

    private func verifiedClaims(_ payload: String, jwksURL: String) throws(AppleNotificationError) -> [String: JSONValue] {
        let kid = UpstreamIDTokenVerifier.header(payload)?["kid"]?.stringValue
        var key: JWK?
        if let kid {
            do { key = try keys.key(kid: kid, url: jwksURL, now: clock.now) } catch { throw .unavailable(error.description) }
        }
        do {
            let verified = try JWS.verify(payload) { requested in
                guard requested == kid, let key, let publicKey = try? key.publicKey() else { return nil }
                return (publicKey, publicKey.algorithm)
            }
            return try verified.claims()
        } catch let error as JWSError {
            throw .invalid(UpstreamIDTokenVerifier.reason(error))
        } catch {
            throw .invalid("unreadable")
        }
    }
}
