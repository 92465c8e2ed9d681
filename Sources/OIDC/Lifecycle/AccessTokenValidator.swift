import Crypto
import FoundationEssentials
import JOSE
import Model

/// What a valid access token grants at /userinfo.
public struct AccessTokenGrant: Sendable, Equatable {
    public let user: User
    /// The OpenID scopes (what /userinfo answers by).
    public let scopes: [String]
    /// Every scope the token carries, API scopes included.
    public var grantedScopes: [String] = []
    public let clientID: String
    public let grantID: String
    /// When the user signed in (the JWT's `auth_time`); nil for opaque tokens and tokens without it.
    public var authTime: Date?
}

/// What a valid machine-to-machine (client_credentials) access token grants at an API.
public struct MachineTokenGrant: Sendable, Equatable {
    public let clientID: String
    public let scopes: [String]
    public let grantID: String
}

/// Validates our access tokens — opaque ones, and JWTs (RFC 9068 §4) — for /userinfo; every failure is `invalid_token` (401).
public enum AccessTokenValidator {
    /// The token of an `Authorization` value whose scheme is `Bearer` in any letter case (RFC 9110 §11.1); nil otherwise.
    public static func bearerToken(fromAuthorization header: String?) -> String? {
        guard let header else { return nil }
        let bytes = Array(header.utf8)
        guard bytes.count > 7, bytes.prefix(7).map(ASCII.lowercase) == Array("bearer ".utf8) else { return nil }
        let token = bytes.dropFirst(7).drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        return token.isEmpty ? nil : String(decoding: token, as: UTF8.self)
    }

    /// An opaque token (`at_…`): opened with our key, so sealed by us and unchanged. Otherwise a JWT:
    /// signature with our keys (the algorithm decided by our key), `typ` `at+jwt` (so an ID token
    /// is refused), `iss`, the userinfo audience. Then for both: `exp`, a live grant, an existing
    /// unblocked user. With `holders`, an opaque token's grant is live unless revoked or its
    /// application deleted (`GrantHolderReader.userOfLiveGrant`); a JWT's grant row is read.
    public static func validate(bearer: String, keys: (String) -> (PublicKey, JWS.Algorithm)?, opaque: OpaqueAccessTokens,
                                issuer: String, grants: any GrantStore, users: any UserStore, clock: any Clock,
                                holders: (any GrantHolderReader)? = nil,
                                audience required: String? = nil) throws(OAuthError) -> AccessTokenGrant {
        // An opaque token is only ever for /userinfo; an API (the Management path) needs its JWT.
        if required != nil, OpaqueAccessTokens.looksOpaque(bearer) { throw invalid("an opaque token presented for an API") }
        let presented = try OpaqueAccessTokens.looksOpaque(bearer)
            ? opened(bearer, opaque: opaque) : verified(bearer, keys: keys, issuer: issuer, audience: required)
        guard Double(presented.expiresAt) > clock.now.timeIntervalSince1970 else { throw invalid("expired") }
        let (subject, grantID, clientID) = (presented.userID, presented.grantID, presented.clientID)
        let user: User?
        if let holders, OpaqueAccessTokens.looksOpaque(bearer) {
            // Sealed by us with its grant's user and application: only a revocation (or the
            // application's deletion) can have ended the grant since (migration 0020).
            let live: Bool
            (live, user) = try storage { () throws(StorageError) in
                try holders.userOfLiveGrant(grantID: grantID, clientID: clientID, userID: subject)
            }
            guard live else { throw invalid("grant \(grantID) revoked or its application deleted") }
        } else {
            let grant: Grant?
            (grant, user) = try storage { () throws(StorageError) in
                if let holders { return try holders.grantAndUser(grantID: grantID, userID: subject) }
                return (try grants.find(grantID: grantID), try users.find(userID: subject))
            }
            guard let grant, grant.revokedAt == nil, grant.userID == subject, grant.clientID == clientID else {
                throw invalid("grant \(grantID) unknown or revoked")
            }
        }
        guard let user, !user.blocked else { throw invalid("user \(subject) missing or blocked") }
        let scopes = AuthorizationRequest.canonicalScopes(presented.scope)
        var result = AccessTokenGrant(user: user, scopes: scopes, clientID: clientID, grantID: grantID)
        result.grantedScopes = ScopeList.tokens(presented.scope)
        result.authTime = presented.authTime.map { Date(timeIntervalSince1970: TimeInterval($0)) }
        return result
    }

    /// A client_credentials JWT for `audience` (RFC 9068 with `gty` `client-credentials`, `sub` the
    /// client): its signature, `typ`, `iss`, `aud`, `exp`, and a live grant of that client
    /// (`MachineGrants`: not revoked, its application still there). Nil when the token is not such a
    /// JWT (then it may be a user's token); `invalid_token` when it is one and fails a check.
    public static func validateMachine(bearer: String, keys: (String) -> (PublicKey, JWS.Algorithm)?, issuer: String, audience: String,
                                       grants: any GrantStore, clients: any ClientStore,
                                       clock: any Clock) throws(OAuthError) -> MachineTokenGrant? {
        guard !OpaqueAccessTokens.looksOpaque(bearer) else { return nil }
        guard let verified = try? JWS.verify(bearer, keys: keys), let claims = try? verified.claims(),
              claims["gty"]?.stringValue == "client-credentials" else { return nil }
        let presented = try checked(verified, claims: claims, issuer: issuer, audience: audience)
        guard Double(presented.expiresAt) > clock.now.timeIntervalSince1970 else { throw invalid("expired") }
        guard presented.userID == presented.clientID else { throw invalid("a client_credentials token whose sub is not its client") }
        let live = try storage { () throws(StorageError) in
            try MachineGrants.isLive(grantID: presented.grantID, clientID: presented.clientID, grants: grants, clients: clients)
        }
        guard live else { throw invalid("grant \(presented.grantID) revoked or its application deleted") }
        return MachineTokenGrant(clientID: presented.clientID, scopes: ScopeList.tokens(presented.scope), grantID: presented.grantID)
    }

    /// What either kind of token says, once its integrity is established.
    struct Presented {
        let userID: String
        let grantID: String
        let clientID: String
        let scope: String
        let expiresAt: Int64
        var authTime: Int64?
    }

    static func opened(_ bearer: String, opaque: OpaqueAccessTokens) throws(OAuthError) -> Presented {
        let payload: OpaqueAccessTokenPayload
        do {
            payload = try opaque.open(bearer)
        } catch {
            throw invalid("opaque token refused: \(error)")
        }
        return Presented(userID: payload.userID, grantID: payload.grantID, clientID: payload.clientID,
                         scope: payload.scope, expiresAt: payload.expiresAt)
    }

    static func verified(_ bearer: String, keys: (String) -> (PublicKey, JWS.Algorithm)?, issuer: String,
                         audience required: String? = nil) throws(OAuthError) -> Presented {
        let verified: VerifiedJWS
        let claims: [String: JSONValue]
        do {
            verified = try JWS.verify(bearer, keys: keys)
            claims = try verified.claims()
        } catch {
            throw invalid("signature or format invalid: \(error)")
        }
        return try checked(verified, claims: claims, issuer: issuer, audience: required)
    }

    /// A verified JWT's header and claims as an access token of ours for the userinfo URL or `required`.
    static func checked(_ verified: VerifiedJWS, claims: [String: JSONValue], issuer: String,
                        audience required: String?) throws(OAuthError) -> Presented {
        guard let typ = verified.header["typ"]?.stringValue?.lowercased(), typ == "at+jwt" || typ == "application/at+jwt" else {
            throw invalid("typ is not at+jwt")
        }
        guard claims["iss"]?.stringValue == issuer else { throw invalid("wrong issuer") }
        let userinfo = required ?? issuer + DiscoveryDocument.Path.userinfo
        guard TokenInspection.audience(claims).contains(userinfo) else { throw invalid("audience lacks \(userinfo)") }
        guard let exp = claims["exp"]?.integerValue else { throw invalid("expired or no exp") }
        guard let subject = claims["sub"]?.stringValue, let grantID = claims["grant_id"]?.stringValue,
              let clientID = claims["client_id"]?.stringValue else { throw invalid("missing sub, grant_id or client_id") }
        return Presented(userID: subject, grantID: grantID, clientID: clientID, scope: claims["scope"]?.stringValue ?? "", expiresAt: exp,
                         authTime: claims["auth_time"]?.integerValue)
    }

    private static func invalid(_ detail: String) -> OAuthError {
        OAuthError(.invalidToken, "the access token is invalid", detail: detail)
    }
}
