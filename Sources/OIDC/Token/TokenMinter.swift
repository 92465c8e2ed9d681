import Crypto
import FoundationEssentials
import Glibc
import JOSE
import Model

/// Signs claim sets with the live key ring (implemented by the web layer): picks the active
/// key for `algorithm`, sets `kid`, and emits a compact JWS with header `typ`.
public protocol TokenSigner: Sendable {
    func sign(claims: [String: JSONValue], algorithm: SigningKey.Algorithm, typ: String) throws -> String
}

/// The token endpoint's success body (RFC 6749 §5.1).
public struct TokenResponse: Sendable, Equatable {
    public var accessToken: String
    /// Only when `openid` was granted.
    public var idToken: String?
    public var tokenType: String
    /// Seconds, a JSON number.
    public var expiresIn: Int
    /// Space-separated granted scopes.
    public var scope: String
    /// Issued when `offline_access` was granted and the application allows the refresh_token grant;
    /// a refresh returns the rotated successor.
    public var refreshToken: String?
    /// RFC 8693 §2.2.1, for a session transfer token (`SessionTransfers.issuedTokenType`).
    public var issuedTokenType: String? = nil

    /// Compact JSON, sorted keys; absent members are omitted.
    public func jsonBody() -> [UInt8] {
        // In byte order of the names, as every JSON body of ours is (`JSONBody`).
        let members: [(name: String, value: JSONValue?)] = [
            ("access_token", .string(accessToken)),
            ("expires_in", .integer(Int64(expiresIn))),
            ("id_token", idToken.map(JSONValue.string)),
            ("issued_token_type", issuedTokenType.map(JSONValue.string)),
            ("refresh_token", refreshToken.map(JSONValue.string)),
            ("scope", .string(scope)),
            ("token_type", .string(tokenType)),
        ]
        let present = members.compactMap { member in member.value.map { (name: member.name, value: $0) } }
        // Strings and integers always encode (only a non-finite number would throw).
        return (try? JSONValue.jsonBytes(orderedMembers: present)) ?? Array("{}".utf8)
    }
}

/// Mints ID tokens (OIDC Core §2, Auth0.swift's validator rules), JWT access tokens for an API
/// (RFC 9068) and opaque access tokens for `/userinfo` alone (`OpaqueAccessTokens`).
public struct TokenMinter: Sendable {
    public let issuer: String
    public let signer: any TokenSigner
    public let opaqueTokens: OpaqueAccessTokens
    public let clock: any Clock

    /// - Parameter issuer: exactly the configured issuer, with its trailing slash.
    public init(issuer: String, signer: any TokenSigner, opaqueTokens: OpaqueAccessTokens, clock: any Clock) {
        self.issuer = issuer
        self.signer = signer
        self.opaqueTokens = opaqueTokens
        self.clock = clock
    }

    /// The userinfo URL, the access token's default audience.
    public var userinfoAudience: String { issuer + DiscoveryDocument.Path.userinfo }

    /// The full token response: access token, ID token when `openid` was granted, refresh token when issued.
    public func response(for issuance: TokenIssuance) throws(OAuthError) -> TokenResponse {
        if let machine = issuance.machine { return try machineResponse(for: issuance, machine: machine) }
        if let transfer = issuance.sessionTransfer { return try sessionTransferResponse(for: issuance, transfer: transfer) }
        let now = clock.now
        let accessToken = try self.accessToken(for: issuance, now: now)
        let idToken = issuance.scopes.contains("openid") ? try self.idToken(for: issuance, now: now) : nil
        return TokenResponse(accessToken: accessToken, idToken: idToken, tokenType: "Bearer",
                             expiresIn: issuance.client.accessTokenLifetime, scope: issuance.scopes.joined(separator: " "),
                             refreshToken: issuance.refreshToken)
    }

    /// The ID token claims: `iss sub aud azp exp iat auth_time nonce? sid?` plus scope claims.
    public func idTokenClaims(for issuance: TokenIssuance, now: Date) -> [String: JSONValue] {
        let iat = Self.seconds(now)
        var claims = UserClaims.claims(for: issuance.user, scopes: issuance.scopes, updatedAt: issuance.client.updatedAtFormat)
        claims["iss"] = .string(issuer)
        claims["aud"] = .string(issuance.client.clientID)
        claims["azp"] = .string(issuance.client.clientID)
        claims["iat"] = .integer(iat)
        claims["exp"] = .integer(iat + Int64(issuance.client.idTokenLifetime))
        claims["auth_time"] = issuance.authTime.map { .integer(Self.seconds($0)) }
        claims["nonce"] = issuance.nonce.map(JSONValue.string)
        claims["sid"] = issuance.sessionID.map(JSONValue.string)
        return claims
    }

    public func idToken(for issuance: TokenIssuance, now: Date) throws(OAuthError) -> String {
        guard let algorithm = SigningKey.Algorithm(rawValue: issuance.client.idTokenAlgorithm) else {
            throw OAuthError(.serverError, "internal error", detail: "client \(issuance.client.clientID) has ID token algorithm \(issuance.client.idTokenAlgorithm)")
        }
        return try sign(idTokenClaims(for: issuance, now: now), algorithm: algorithm, typ: "JWT")
    }

    /// RFC 9068 claims: `iss sub aud client_id scope jti iat exp grant_id`, and `auth_time` (§2.2.1)
    /// when the sign-in time is known: the Management API's account deletion asks for a recent login.
    public func accessTokenClaims(for issuance: TokenIssuance, now: Date) -> [String: JSONValue] {
        let iat = Self.seconds(now)
        var audience: [JSONValue] = []
        if let requested = issuance.audience, requested != userinfoAudience { audience.append(.string(requested)) }
        audience.append(.string(userinfoAudience))
        var claims: [String: JSONValue] = [
            "iss": .string(issuer),
            "sub": .string(issuance.user.userID),
            "aud": audience.count == 1 ? audience[0] : .array(audience),
            "client_id": .string(issuance.client.clientID),
            "scope": .string(issuance.scopes.joined(separator: " ")),
            "jti": .string(Random.token(bytes: 16)),
            "iat": .integer(iat),
            "exp": .integer(iat + Int64(issuance.client.accessTokenLifetime)),
            "grant_id": .string(issuance.grant.grantID),
        ]
        claims["auth_time"] = issuance.authTime.map { .integer(Self.seconds($0)) }
        return claims
    }

    /// Whether the access token is only good for `/userinfo` (no audience, or the userinfo URL itself):
    /// then it is opaque, as Auth0 issues it, and a refresh costs one signature (the ID token's).
    public func isUserinfoOnly(_ issuance: TokenIssuance) -> Bool {
        guard let audience = issuance.audience else { return true }
        return TokenInspection.same(audience, userinfoAudience)
    }

    /// The opaque token's contents: what `/userinfo` checks, and introspection reports.
    public func opaquePayload(for issuance: TokenIssuance, now: Date) -> OpaqueAccessTokenPayload {
        let iat = Self.seconds(now)
        return OpaqueAccessTokenPayload(grantID: issuance.grant.grantID, userID: issuance.user.userID,
                                        clientID: issuance.client.clientID, scope: issuance.scopes.joined(separator: " "),
                                        issuedAt: iat, expiresAt: iat + Int64(issuance.client.accessTokenLifetime))
    }

    /// Opaque when only good for `/userinfo`; otherwise an RFC 9068 JWT signed with the API's
    /// algorithm (its resource server verifies it), or the application's when no API was resolved.
    public func accessToken(for issuance: TokenIssuance, now: Date) throws(OAuthError) -> String {
        if isUserinfoOnly(issuance) {
            do {
                return try opaqueTokens.seal(opaquePayload(for: issuance, now: now))
            } catch {
                throw OAuthError(.serverError, "internal error", detail: "sealing the access token failed: \(error)")
            }
        }
        let algorithm = SigningKey.Algorithm(rawValue: issuance.apiSigningAlgorithm ?? issuance.client.idTokenAlgorithm) ?? .rs256
        return try sign(accessTokenClaims(for: issuance, now: now), algorithm: algorithm, typ: "at+jwt")
    }

    private func sign(_ claims: [String: JSONValue], algorithm: SigningKey.Algorithm, typ: String) throws(OAuthError) -> String {
        do {
            return try signer.sign(claims: claims, algorithm: algorithm, typ: typ)
        } catch {
            throw OAuthError(.serverError, "internal error", detail: "signing failed: \(error)")
        }
    }

    /// Whole seconds since 1970 (floor).
    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
}

/// User claims by scope (OIDC Core §5.4), shared by ID tokens and /userinfo.
public enum UserClaims {
    /// `sub` always; `name given_name family_name nickname picture updated_at` for `profile`;
    /// `email email_verified` for `email`. Absent profile values are omitted, except that `name`
    /// defaults to the email and `nickname` to the email's local part, as Auth0 fills them
    /// (docs/auth0-compat.md). `updated_at` is an ISO-8601 string with milliseconds, as Auth0 sends
    /// it and Auth0.swift's UserProfile reads it, or for `.number` OIDC Core §5.1's seconds.
    public static func claims(for user: User, scopes: [String], updatedAt format: Client.UpdatedAtFormat = .iso) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [:]
        // Room for every claim an ID token adds (`idTokenClaims`): growing rehashes them all.
        claims.reserveCapacity(20)
        claims["sub"] = .string(user.userID)
        if scopes.contains("profile") {
            claims["name"] = .string(user.name ?? user.email)
            claims["given_name"] = user.givenName.map(JSONValue.string)
            claims["family_name"] = user.familyName.map(JSONValue.string)
            claims["nickname"] = .string(user.nickname ?? defaultNickname(email: user.email))
            claims["picture"] = user.picture.map(JSONValue.string)
            switch format {
            case .iso: claims["updated_at"] = .string(isoTimestamp(user.updatedAt))
            case .number: claims["updated_at"] = .integer(Int64(user.updatedAt.timeIntervalSince1970.rounded(.down)))
            }
        }
        if scopes.contains("email") {
            claims["email"] = .string(user.email)
            claims["email_verified"] = .bool(user.emailVerified)
        }
        return claims
    }

    /// The /userinfo body.
    public static func userinfoBody(for user: User, scopes: [String], updatedAt format: Client.UpdatedAtFormat = .iso) -> [UInt8] {
        JSONBody.encode(claims(for: user, scopes: scopes, updatedAt: format))
    }

    /// The part of the email before the last `@` (the whole email when it has none).
    public static func defaultNickname(email: String) -> String {
        guard let at = email.lastIndex(of: "@"), at != email.startIndex else { return email }
        return String(email[..<at])
    }

    /// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` in UTC.
    public static func isoTimestamp(_ date: Date) -> String {
        // Formatted by hand: an ISO8601DateFormatter per call costs more than the rest of /userinfo.
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(millis / 1000 - (millis % 1000 < 0 ? 1 : 0))
        let fraction = Int((millis % 1000 + 1000) % 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))T"
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2)).\(pad(fraction, 3))Z"
    }
}
