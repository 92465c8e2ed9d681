import Crypto
import FoundationEssentials
import Model

/// Refresh-token issuance and the `refresh_token` grant's configuration: the store, and the
/// server secret that derives a token's successor.
///
/// Tokens are opaque 256-bit random values stored only as SHA-256 digests. A successor is derived
/// deterministically from the presented token, `base64url(HMAC-SHA256(successorKey, "gatehouse
/// refresh successor" || presented))`, so a retry inside the overlap window can hand back the
/// same successor although only its digest is stored, and concurrent refreshes of one token all
/// compute the same single successor.
public struct RefreshTokens: Sendable {
    public let store: any RefreshTokenStore
    /// When set, a refresh counts as activity of the family's session (`last_seen_at`), and an
    /// application with `refreshSurvivesLogout` off loses its refresh tokens when the session ends.
    public let sessions: (any SessionStore)?
    /// When set, the grant reads a token's family in one step instead of asking each store.
    public let familyReader: (any RefreshTokenFamilyReader)?
    let successorKey: [UInt8]
    /// Seconds between two recordings of a session's activity by refreshes.
    public static let activityResolution: TimeInterval = 60

    /// Exactly the text Auth0.swift's `isInvalidRefreshToken` keys on.
    public static let invalidDescription = "Unknown or invalid refresh token."
    static let successorLabel = Array("gatehouse refresh successor".utf8)

    /// - Parameter successorKey: a server secret of at least 32 bytes (the daemon derives it from the
    ///   key-encryption key).
    public init(store: any RefreshTokenStore, successorKey: [UInt8], sessions: (any SessionStore)? = nil,
                familyReader: (any RefreshTokenFamilyReader)? = nil) {
        precondition(successorKey.count >= 32, "the refresh successor key must have at least 32 bytes")
        self.store = store
        self.sessions = sessions
        self.familyReader = familyReader
        self.successorKey = successorKey
    }

    public static func hash(_ token: String) -> String { Digest.sha256Hex(Array(token.utf8)) }

    /// The successor of `token`, always the same for the same token and key.
    public func successor(of token: String) -> String {
        Base64URL.encode(HMAC.sha256(key: successorKey, data: Self.successorLabel + Array(token.utf8)))
    }

    /// A fresh token value: 32 random bytes, base64url.
    public static func newToken() -> String { Random.token(bytes: 32) }

    /// The one answer for any dead, unknown, foreign, expired or reused token (invalid_grant, 400).
    static func invalid(_ detail: String) -> OAuthError {
        OAuthError(.invalidGrant, invalidDescription, detail: detail)
    }
}

extension TokenEndpoint {
    /// Whether the code exchange issues a refresh token: `offline_access` granted, the application
    /// allows the `refresh_token` grant, and refresh tokens are configured.
    func issuesRefreshToken(scopes: [String], client: Client) -> Bool {
        refreshTokens != nil && scopes.contains("offline_access") && client.grantTypes.contains(.refreshToken)
    }

    /// Stores the first token of a new family; its absolute lifetime starts now.
    func issueFirstRefreshToken(grant: Grant, client: Client, userID: String, now: Date) throws(OAuthError) -> String? {
        guard let refreshTokens else { return nil }
        let value = RefreshTokens.newToken()
        let token = RefreshToken(tokenHash: RefreshTokens.hash(value), grantID: grant.grantID, clientID: client.clientID,
                                 userID: userID, scope: grant.scope, issuedAt: now,
                                 expiresAt: now.addingTimeInterval(TimeInterval(client.refreshAbsoluteLifetime)))
        do {
            try refreshTokens.store.insert(token)
        } catch {
            throw OAuthError(storage: error)
        }
        return value
    }

    // MARK: - refresh_token (RFC 6749 §6, RFC 9700 §4.14.2, OIDC Core §12)

    /// Rotation with reuse detection and an overlap window for retries.
    ///
    /// Order: the token must exist and belong to the authenticated client (else invalid_grant, with
    /// no side effect, so client B cannot burn client A's token); its grant must be live, its user
    /// unblocked and the family's absolute lifetime not over. An unused token must also be within
    /// its inactivity lifetime and the request's `scope`/`audience` valid before it is consumed.
    /// Then one atomic store step decides: first use (rotate), retry inside the window (same
    /// successor), or reuse — which revokes the whole family (grant and every refresh token; the
    /// access tokens die through `grant_id`).
    ///
    /// `audience`: only the grant's own audience may be asked for (absent, or equal to it);
    /// anything else is `invalid_request` "audience not granted" until per-API audiences exist.
    func refreshTokenGrant(_ request: TokenRequest, client authenticated: AuthenticatedClient) throws(OAuthError) -> TokenIssuance {
        guard let refreshTokens else {
            throw OAuthError(.unsupportedGrantType, "unsupported grant_type", detail: "refresh tokens are not configured")
        }
        guard let value = request["refresh_token"], !value.isEmpty else {
            throw OAuthError(.invalidRequest, "refresh_token is required")
        }
        let client = authenticated.client
        let now = clock.now
        let presentedHash = RefreshTokens.hash(value)
        guard let family = try loadFamily(tokenHash: presentedHash, refreshTokens: refreshTokens) else {
            throw RefreshTokens.invalid("unknown refresh token")
        }
        let presented = family.token
        guard Array(presented.clientID.utf8) == Array(client.clientID.utf8) else {
            throw RefreshTokens.invalid("refresh token of \(presented.clientID) presented by \(client.clientID)")
        }
        guard presented.revokedAt == nil else { throw RefreshTokens.invalid("refresh token revoked") }
        guard let grant = family.grant, grant.revokedAt == nil else {
            throw RefreshTokens.invalid("grant \(presented.grantID) missing or revoked")
        }
        // D08: a blocked or deleted user's refresh tokens stop working.
        guard let user = family.user, !user.blocked else { throw RefreshTokens.invalid("user \(presented.userID) missing or blocked") }
        guard now < presented.expiresAt else { throw RefreshTokens.invalid("refresh token family past its absolute lifetime") }
        let session = refreshTokens.sessions == nil ? nil : family.session
        if !client.refreshSurvivesLogout, refreshTokens.sessions != nil, let sessionID = grant.sessionID,
           session == nil || session?.endedAt != nil {
            throw RefreshTokens.invalid("session \(sessionID) ended and the application's refresh tokens do not survive logout")
        }

        // Parameter errors are decided up front but, for a token that was already rotated, only
        // reported once the store has ruled out reuse (reuse detection wins over a bad parameter).
        var parameterError: OAuthError?
        var scopes = AuthorizationRequest.canonicalScopes(presented.scope)
        do throws(OAuthError) {
            scopes = try narrowedScopes(request["scope"], granted: presented.scope)
            try checkAudience(request["audience"], grant: grant)
        } catch {
            parameterError = error
        }
        if presented.isUnused {
            if client.refreshIdleLifetime > 0, now.timeIntervalSince(presented.lastUsedAt) >= TimeInterval(client.refreshIdleLifetime) {
                throw RefreshTokens.invalid("refresh token idle past its inactivity lifetime")
            }
            if let parameterError { throw parameterError }
        }

        let successorValue = refreshTokens.successor(of: value)
        let successor = RefreshToken(tokenHash: RefreshTokens.hash(successorValue), grantID: presented.grantID,
                                     clientID: presented.clientID, userID: presented.userID, scope: presented.scope,
                                     issuedAt: now, expiresAt: presented.expiresAt)
        let outcome: RefreshRotation
        do {
            outcome = try refreshTokens.store.rotate(tokenHash: presentedHash, successor: successor,
                                                     reuseInterval: client.refreshReuseInterval, at: now)
        } catch {
            throw OAuthError(storage: error)
        }
        switch outcome {
        case .rotated, .retried:
            if let parameterError { throw parameterError }
            if let session, session.endedAt == nil, now.timeIntervalSince(session.lastSeenAt) >= RefreshTokens.activityResolution {
                // Activity for `idp-admin sessions list`, at most once a minute (a write per refresh
                // would double the writes); a failure here must not fail the refresh.
                try? refreshTokens.sessions?.touch(sessionID: session.sessionID, at: now)
            }
        case .reused(let token):
            try revokeFamily(token.grantID, at: now)
            throw RefreshTokens.invalid("refresh token reused; family \(token.grantID) revoked")
        case .revoked:
            throw RefreshTokens.invalid("refresh token (or its successor) revoked")
        case .unknown:
            throw RefreshTokens.invalid("unknown refresh token")
        }
        return TokenIssuance(client: client, user: user, grant: grant, scopes: scopes, audience: grant.audience, nonce: nil,
                             authTime: grant.authTime, sessionID: grant.sessionID, refreshToken: successorValue)
    }

    /// The requested scopes, which may only narrow the family's; none requested → all of them.
    func narrowedScopes(_ requested: String?, granted: String) throws(OAuthError) -> [String] {
        let grantedScopes = Set(granted.split(separator: " ").map(String.init))
        guard let requested, !requested.trimmingWhitespace().isEmpty else {
            return AuthorizationRequest.canonicalScopes(granted)
        }
        let asked = Set(requested.split(separator: " ", omittingEmptySubsequences: true).map(String.init))
        guard asked.isSubset(of: grantedScopes) else {
            throw OAuthError(.invalidScope, "the requested scope exceeds the granted scope",
                             detail: "asked \(asked.sorted()), granted \(grantedScopes.sorted())")
        }
        return AuthorizationRequest.canonicalScopes(requested)
    }

    func checkAudience(_ requested: String?, grant: Grant) throws(OAuthError) {
        guard let requested, !requested.isEmpty else { return }
        guard let granted = grant.audience, Array(granted.utf8) == Array(requested.utf8) else {
            throw OAuthError(.invalidRequest, "audience not granted", detail: "asked \(requested), grant has \(grant.audience ?? "none")")
        }
    }

    /// The presented token with its grant, user and session: in one read when the store offers it,
    /// else from each store in turn.
    func loadFamily(tokenHash: String, refreshTokens: RefreshTokens) throws(OAuthError) -> RefreshTokenFamily? {
        do {
            if let reader = refreshTokens.familyReader { return try reader.family(tokenHash: tokenHash) }
            guard let token = try refreshTokens.store.find(tokenHash: tokenHash) else { return nil }
            let grant = try grants.find(grantID: token.grantID)
            let session = try grant?.sessionID.flatMap { sessionID throws(StorageError) in
                try refreshTokens.sessions?.find(sessionID: sessionID)
            }
            return RefreshTokenFamily(token: token, grant: grant, user: try users.find(userID: token.userID), session: session)
        } catch {
            throw OAuthError(storage: error)
        }
    }

    /// Reuse: revoke the grant (access tokens die through `grant_id`) and every refresh token of it.
    func revokeFamily(_ grantID: String, at now: Date) throws(OAuthError) {
        do {
            try grants.revoke(grantID: grantID, at: now, reason: "refresh token reused")
            try refreshTokens?.store.revokeFamily(grantID: grantID, at: now)
        } catch StorageError.notFound {
            try? refreshTokens?.store.revokeFamily(grantID: grantID, at: now)
        } catch {
            throw OAuthError(storage: error)
        }
    }
}
