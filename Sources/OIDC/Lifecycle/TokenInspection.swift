import Crypto
import FoundationEssentials
import JOSE
import Model

/// Which kind of our tokens a presented string is (RFC 7009 / RFC 7662 `token_type_hint` values).
public enum TokenKind: String, Sendable, Equatable {
    case accessToken = "access_token"
    case refreshToken = "refresh_token"
}

/// Recognises a token we issued, without deciding whether the caller may act on it.
///
/// Token type hints are not needed: a refresh token is found at the place its value names, or by
/// its SHA-256 (`RefreshTokenValue`) in `refresh_tokens` (an `rt2` value at its family's row, its MAC recomputed), an `at_…` value that opens under our key is an opaque access token
/// (`OpaqueAccessTokens`), anything shaped like a JWS is verified as one of our access tokens
/// (signature with our keys — the algorithm decided by our key, so `alg: none` or a foreign key
/// never verifies — `typ` `at+jwt` and our `iss`). Expiry and revocation are the callers' business.
enum TokenInspection {
    enum Found: Equatable {
        case refresh(RefreshToken)
        /// The verified claims of one of our access tokens, with its `grant_id` and `client_id`.
        case access(claims: [String: JSONValue], grantID: String, clientID: String)
        /// Unknown, malformed, foreign-signed, or not one of ours; the reason is for logs.
        case unknown(String)
    }

    /// `familyMAC` checks `rt2` refresh tokens; without it they are never recognised.
    static func inspect(_ token: String, lookup: any LifecycleLookup, keys: Authorizer.KeyLookup, opaque: OpaqueAccessTokens,
                        issuer: String, familyMAC: RefreshFamilyMAC?) throws(OAuthError) -> Found {
        guard !token.isEmpty, token.utf8.count <= JWS.maximumLength else { return .unknown("empty or oversized token") }
        // A random refresh token may begin with `at_` too: one that does not open is looked up as one.
        if OpaqueAccessTokens.looksOpaque(token), let payload = try? opaque.open(token) {
            return .access(claims: claims(of: payload, issuer: issuer), grantID: payload.grantID, clientID: payload.clientID)
        }
        let snapshot: RefreshToken?
        do {
            let key = RefreshTokenValue.key(for: token)
            let found = try lookup.refreshToken(key)
            snapshot = key.inFamilyRow ? familyMAC?.checked(token, key: key, found: found) : found
        } catch {
            throw OAuthError(storage: error)
        }
        if let snapshot { return .refresh(snapshot) }
        guard token.utf8.filter({ $0 == UInt8(ascii: ".") }).count == 2 else { return .unknown("not a stored refresh token nor a JWS") }
        let verified: VerifiedJWS
        let claims: [String: JSONValue]
        do {
            verified = try JWS.verify(token, keys: keys)
            claims = try verified.claims()
        } catch {
            return .unknown("JWS not verified: \(error)")
        }
        guard let typ = verified.header["typ"]?.stringValue?.lowercased(), typ == "at+jwt" || typ == "application/at+jwt" else {
            return .unknown("typ is not at+jwt")
        }
        guard claims["iss"]?.stringValue == issuer else { return .unknown("another issuer") }
        guard let grantID = claims["grant_id"]?.stringValue, let clientID = claims["client_id"]?.stringValue else {
            return .unknown("no grant_id or client_id")
        }
        return .access(claims: claims, grantID: grantID, clientID: clientID)
    }

    /// An opaque token's contents in the claims a JWT access token would carry (no `jti`): its
    /// audience is the userinfo URL, the only place it is good for.
    static func claims(of payload: OpaqueAccessTokenPayload, issuer: String) -> [String: JSONValue] {
        ["iss": .string(issuer), "sub": .string(payload.userID), "aud": .string(issuer + DiscoveryDocument.Path.userinfo),
         "client_id": .string(payload.clientID), "scope": .string(payload.scope), "iat": .integer(payload.issuedAt),
         "exp": .integer(payload.expiresAt), "grant_id": .string(payload.grantID)]
    }

    /// The `aud` claim as a list.
    static func audience(_ claims: [String: JSONValue]) -> [String] {
        switch claims["aud"] {
        case .string(let value): [value]
        case .array(let values): values.compactMap(\.stringValue)
        default: []
        }
    }

    /// Byte-for-byte string equality (no Unicode canonical equivalence).
    static func same(_ left: String, _ right: String) -> Bool { Array(left.utf8) == Array(right.utf8) }
}
