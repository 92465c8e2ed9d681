import FoundationEssentials
import JOSE
import Model

/// An RFC 7662 introspection answer.
public struct Introspection: Sendable, Equatable {
    /// The members of the JSON object; exactly `["active": false]` when inactive.
    public let members: [String: JSONValue]

    public static let inactive = Introspection(members: ["active": .bool(false)])

    public var isActive: Bool { members["active"] == .bool(true) }

    /// Compact JSON, sorted keys.
    public func jsonBody() -> [UInt8] { JSONBody.encode(members) }
}

/// `POST /oauth/introspect` (RFC 7662) for confidential clients.
///
/// - The caller authenticates with its secret; public clients (method `none`) → `invalid_client`.
/// - It may introspect tokens issued to itself; with `introspectionEnabled`, also access tokens
///   whose `aud` names an API it holds a client grant for (a resource server checking tokens).
/// - Anything else — unknown, malformed, expired, revoked, or foreign — is exactly `{"active":false}`,
///   so the answer reveals nothing about other clients' tokens.
public struct TokenIntrospector: Sendable {
    public let issuer: String
    public let clients: any ClientStore
    public let grants: any GrantStore
    public let users: any UserStore
    public let apis: any APIStore
    public let lookup: any LifecycleLookup
    public let keys: Authorizer.KeyLookup
    public let opaqueTokens: OpaqueAccessTokens
    /// Recognises `rt2` refresh tokens (`RefreshTokens.familyMAC`); nil: only older ones are found.
    public var familyMAC: RefreshFamilyMAC?
    public let clock: any Clock

    public init(issuer: String, clients: any ClientStore, grants: any GrantStore, users: any UserStore, apis: any APIStore,
                lookup: any LifecycleLookup, keys: @escaping Authorizer.KeyLookup, opaqueTokens: OpaqueAccessTokens, clock: any Clock) {
        self.issuer = issuer
        self.clients = clients
        self.grants = grants
        self.users = users
        self.apis = apis
        self.lookup = lookup
        self.keys = keys
        self.opaqueTokens = opaqueTokens
        self.clock = clock
    }

    public func introspect(_ request: TokenRequest) throws(OAuthError) -> Introspection {
        // RFC 7662 §2.3 with RFC 6749 §5.2: no credentials at all is a failed client authentication (401), not a bad request.
        guard request.authorization != nil || request["client_id"] != nil else {
            throw OAuthError(.invalidClient, ClientAuthenticator.failed, detail: "introspection without client credentials")
        }
        let authenticated = try ClientAuthenticator.authenticate(request, clients: clients)
        let caller = authenticated.client
        guard caller.isConfidential, authenticated.method != .none else {
            throw OAuthError(.invalidClient, ClientAuthenticator.failed, detail: "\(caller.clientID) is public and may not introspect")
        }
        guard let token = request["token"], !token.isEmpty else { throw OAuthError(.invalidRequest, "token is required") }
        do {
            switch try TokenInspection.inspect(token, lookup: lookup, keys: keys, opaque: opaqueTokens, issuer: issuer, familyMAC: familyMAC) {
            case .unknown:
                return .inactive
            case .refresh(let snapshot):
                return try refreshToken(snapshot, caller: caller)
            case .access(let claims, let grantID, let clientID):
                return try accessToken(claims, grantID: grantID, clientID: clientID, caller: caller)
            }
        } catch let error as OAuthError {
            throw error
        } catch let error as StorageError {
            throw OAuthError(storage: error)
        } catch {
            throw OAuthError(.serverError, "internal error", detail: "\(error)")
        }
    }

    /// Only the client the refresh token was issued to may see it; live means not revoked, its grant
    /// live, within the absolute and idle lifetimes, not rotated (beyond the reuse interval), user active.
    func refreshToken(_ snapshot: RefreshToken, caller: Client) throws -> Introspection {
        guard TokenInspection.same(snapshot.clientID, caller.clientID) else { return .inactive }
        let now = clock.now
        guard snapshot.revokedAt == nil, now < snapshot.expiresAt,
              now < snapshot.lastUsedAt.addingTimeInterval(TimeInterval(caller.refreshIdleLifetime)) else { return .inactive }
        if let rotated = snapshot.rotatedAt, now >= rotated.addingTimeInterval(TimeInterval(caller.refreshReuseInterval)) {
            return .inactive
        }
        guard let grant = try grants.find(grantID: snapshot.grantID), grant.revokedAt == nil,
              try activeSubject(grant: grant, subject: snapshot.userID) else { return .inactive }
        return Introspection(members: [
            "active": .bool(true), "token_type": .string(TokenKind.refreshToken.rawValue), "scope": .string(snapshot.scope),
            "client_id": .string(snapshot.clientID), "sub": .string(snapshot.userID), "iss": .string(issuer),
            "iat": .integer(Self.seconds(snapshot.issuedAt)), "exp": .integer(Self.seconds(snapshot.expiresAt)),
        ])
    }

    func accessToken(_ claims: [String: JSONValue], grantID: String, clientID: String, caller: Client) throws -> Introspection {
        let audience = TokenInspection.audience(claims)
        guard try mayIntrospect(clientID: clientID, audience: audience, caller: caller) else { return .inactive }
        guard let exp = claims["exp"]?.integerValue, Double(exp) > clock.now.timeIntervalSince1970 else { return .inactive }
        guard let subject = claims["sub"]?.stringValue else { return .inactive }
        if MachineGrants.isMachineToken(claims, clientID: clientID) {
            guard try MachineGrants.isLive(grantID: grantID, clientID: clientID, grants: grants, clients: clients) else { return .inactive }
        } else {
            guard let grant = try grants.find(grantID: grantID), grant.revokedAt == nil, TokenInspection.same(grant.clientID, clientID),
                  try activeSubject(grant: grant, subject: subject) else { return .inactive }
        }
        var members: [String: JSONValue] = [
            "active": .bool(true), "token_type": .string(TokenKind.accessToken.rawValue), "client_id": .string(clientID),
            "sub": .string(subject), "iss": .string(issuer), "exp": .integer(exp),
            "aud": audience.count == 1 ? .string(audience[0]) : .array(audience.map(JSONValue.string)),
        ]
        members["scope"] = claims["scope"]?.stringValue.map(JSONValue.string)
        members["iat"] = claims["iat"]?.integerValue.map(JSONValue.integer)
        members["jti"] = claims["jti"]?.stringValue.map(JSONValue.string)
        return Introspection(members: members)
    }

    /// Its own token, or (when the operator enabled introspection for it) one for an API it is granted.
    func mayIntrospect(clientID: String, audience: [String], caller: Client) throws -> Bool {
        if TokenInspection.same(clientID, caller.clientID) { return true }
        guard caller.introspectionEnabled else { return false }
        for identifier in audience {
            if let api = try apis.find(identifier: identifier), try apis.clientGrant(clientID: caller.clientID, apiID: api.apiID) != nil {
                return true
            }
        }
        return false
    }

    /// A user grant needs its user to exist, be unblocked and be the token's subject; a
    /// client_credentials grant (no user) needs the subject to be its client.
    func activeSubject(grant: Grant, subject: String) throws -> Bool {
        guard let userID = grant.userID else { return TokenInspection.same(subject, grant.clientID) }
        guard TokenInspection.same(userID, subject), let user = try users.find(userID: userID) else { return false }
        return !user.blocked
    }

    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
}
