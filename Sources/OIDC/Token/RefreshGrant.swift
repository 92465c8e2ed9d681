import Crypto
import FoundationEssentials
import Model

/// Refresh-token issuance and the `refresh_token` grant's configuration: the store, and the
/// server secret the tokens' MACs are derived from.
///
/// A family issued since migration 0017 is one stored row and its tokens are `rt2` values
/// (`RefreshTokenValue`, `RefreshFamilyMAC`): nothing secret is stored, a token is checked by
/// recomputing its MAC, and its successor is the same family at the next generation, so a retry
/// inside the overlap window gets the same successor back and concurrent refreshes of one token
/// all compute the same one. Older tokens (stored as SHA-256 digests) rotate into such a family;
/// one rotated before that to an older-style successor, derived as
/// `base64url(HMAC-SHA256(successorKey, "gatehouse refresh successor" || presented))`, keeps that
/// successor for a retry.
public struct RefreshTokens: Sendable {
    public let store: any RefreshTokenStore
    /// When set, an application with `refreshSurvivesLogout` off loses its refresh tokens when the
    /// session ends. (A refresh is the session's activity without a write of its own: the store
    /// reads it from the rotated family, `Session.lastSeenAt`.)
    public let sessions: (any SessionStore)?
    /// When set, the grant reads a token's family in one step instead of asking each store.
    public let familyReader: (any RefreshTokenFamilyReader)?
    /// Checks and computes `rt2` values; revocation and introspection need it too.
    public let familyMAC: RefreshFamilyMAC
    let successorKey: [UInt8]
    /// What the daemon derives `successorKey` from the key-encryption key under.
    public static let successorKeyPurpose = "gatehouse refresh-token successor key v1"

    /// Exactly the text Auth0.swift's `isInvalidRefreshToken` keys on.
    public static let invalidDescription = "Unknown or invalid refresh token."
    /// Auth0's text for a refresh token whose user was deleted (Auth0.swift `isRefreshTokenDeleted`).
    public static let deletedUserDescription = "The refresh_token was generated for a user who doesn't exist anymore."
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
        familyMAC = RefreshFamilyMAC(successorKey: successorKey)
    }

    public static func hash(_ token: String) -> String { Digest.sha256Hex(Array(token.utf8)) }

    /// The older-style successor of `token`, always the same for the same token and key.
    public func successor(of token: String) -> String {
        Base64URL.encode(HMAC.sha256(key: successorKey, data: Self.successorLabel + Array(token.utf8)))
    }

    /// The older-style successor's value: at the generation after `presented`'s in its family (the
    /// secret derived from `token`), or, for a token stored without its place, the derived secret alone.
    public func successor(of token: String, presented: RefreshToken) -> String {
        guard let generation = presented.generation else { return successor(of: token) }
        return RefreshTokenValue.compose(grantID: presented.grantID, generation: generation + 1, secret: successor(of: token))
    }

    /// A new family's first token (generation 0, a new salt), to store; its value is `familyMAC.value(of:)`.
    public static func firstToken(grantID: String, clientID: String, userID: String, scope: String, issuedAt: Date,
                                  expiresAt: Date) -> RefreshToken {
        RefreshToken(tokenHash: RefreshTokenKey.name(grantID: grantID, generation: 0), grantID: grantID, clientID: clientID,
                     userID: userID, scope: scope, issuedAt: issuedAt, expiresAt: expiresAt, generation: 0,
                     familySalt: RefreshFamilyMAC.newSalt())
    }

    /// What `presented` (the value `value`) rotates to: the next generation of its one-row family
    /// (a new family row for an older token, with a new salt), or, for an older token already
    /// rotated to an older-style successor, that successor (only a retry can still return it).
    func successor(of value: String, presented: RefreshToken, at now: Date) -> RefreshToken {
        let generation = (presented.generation ?? 0) + 1
        let name = RefreshTokenKey.name(grantID: presented.grantID, generation: generation)
        let base = RefreshToken(tokenHash: name, grantID: presented.grantID, clientID: presented.clientID, userID: presented.userID,
                                scope: presented.scope, issuedAt: now, expiresAt: presented.expiresAt, generation: generation)
        if presented.familySalt != nil {
            return RefreshToken(tokenHash: name, grantID: base.grantID, clientID: base.clientID, userID: base.userID, scope: base.scope,
                                issuedAt: now, expiresAt: base.expiresAt, generation: generation, familySalt: presented.familySalt)
        }
        if let stored = presented.successorHash, stored != name {
            var older = base
            older.tokenHash = Self.hash(successor(of: value, presented: presented))
            return older
        }
        var next = base
        next.familySalt = RefreshFamilyMAC.newSalt()
        return next
    }

    /// The value of the successor a rotation or retry answered with.
    func value(of next: RefreshToken, presentedValue: String, presented: RefreshToken) -> String {
        familyMAC.value(of: next) ?? successor(of: presentedValue, presented: presented)
    }

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
        let token = RefreshTokens.firstToken(grantID: grant.grantID, clientID: client.clientID, userID: userID, scope: grant.scope,
                                             issuedAt: now, expiresAt: now.addingTimeInterval(TimeInterval(client.refreshAbsoluteLifetime)))
        try storage { () throws(StorageError) in try refreshTokens.store.insert(token) }
        return refreshTokens.familyMAC.value(of: token)
    }

    // MARK: - refresh_token (RFC 6749 §6, RFC 9700 §4.14.2, OIDC Core §12)

    /// Rotation with reuse detection and an overlap window for retries.
    ///
    /// Order: the token must exist and belong to the authenticated client (else invalid_grant, with
    /// no side effect, so client B cannot burn client A's token); its grant must be live, its user
    /// unblocked and the family's absolute lifetime not over. A token that was already rotated goes
    /// to the store's reuse decision at once (`RefreshReuseRule`: a retry inside the window, or reuse,
    /// which revokes the family in the same transaction) — reuse detection wins over a bad parameter.
    /// An unused token must be within its inactivity lifetime, and passes the scope-and-audience
    /// phase before it is consumed; a refused `scope` or `audience` leaves it unused.
    /// Detected reuse is reported in `context` (`refresh_token.reused`: an audit event and the reuse metric).
    func refreshTokenGrant(_ request: TokenRequest, client authenticated: AuthenticatedClient,
                           context: inout RequestContext) throws(OAuthError) -> GrantDraft {
        guard let refreshTokens else {
            throw OAuthError(.unsupportedGrantType, "unsupported grant_type", detail: "refresh tokens are not configured")
        }
        guard let value = request["refresh_token"], !value.isEmpty else {
            throw OAuthError(.invalidRequest, "refresh_token is required")
        }
        let client = authenticated.client
        let now = clock.now
        let presentedKey = RefreshTokenValue.key(for: value)
        // Only tokens that end with the session need it read (at a million sessions, two B-trees more).
        let endsWithSession = !client.refreshSurvivesLogout && refreshTokens.sessions != nil
        guard let family = try loadFamily(value, refreshTokens: refreshTokens, includingSession: endsWithSession) else {
            if try storage({ () throws(StorageError) in try refreshTokens.store.belongedToDeletedUser(tokenHash: presentedKey.tombstone) }) {
                throw OAuthError(.invalidGrant, RefreshTokens.deletedUserDescription, detail: "refresh token of a deleted user")
            }
            throw RefreshTokens.invalid("unknown refresh token")
        }
        let presented = family.token
        guard TokenInspection.same(presented.clientID, client.clientID) else {
            throw RefreshTokens.invalid("refresh token of \(presented.clientID) presented by \(client.clientID)")
        }
        guard presented.revokedAt == nil else { throw RefreshTokens.invalid("refresh token revoked") }
        guard let grant = family.grant, grant.revokedAt == nil else {
            throw RefreshTokens.invalid("grant \(presented.grantID) missing or revoked")
        }
        // negative-tests D08: a blocked or deleted user's refresh tokens stop working.
        guard let user = family.user else {
            throw OAuthError(.invalidGrant, RefreshTokens.deletedUserDescription, detail: "user \(presented.userID) missing")
        }
        guard !user.blocked else { throw RefreshTokens.invalid("user \(presented.userID) blocked") }
        guard now < presented.expiresAt else { throw RefreshTokens.invalid("refresh token family past its absolute lifetime") }
        if endsWithSession, let sessionID = grant.sessionID, family.session == nil || family.session?.endedAt != nil {
            throw RefreshTokens.invalid("session \(sessionID) ended and the application's refresh tokens do not survive logout")
        }

        let successor = refreshTokens.successor(of: value, presented: presented, at: now)
        let judge = RefreshReuseRule(window: client.refreshReuseInterval)
        let rotateOutcome = { () throws(OAuthError) -> RefreshRotation in
            try storage { () throws(StorageError) in
                try refreshTokens.store.rotate(presentedKey, successor: successor, judge: judge, at: now)
            }
        }
        // The successor's value comes from the store's answer: a retry's is the stored family's.
        let rotate = { () throws(OAuthError) -> String in
            refreshTokens.value(of: try Self.accept(try rotateOutcome()), presentedValue: value, presented: presented)
        }
        var decided: String?
        if presented.isUnused {
            if client.refreshIdleLifetime > 0, now.timeIntervalSince(presented.lastUsedAt) >= TimeInterval(client.refreshIdleLifetime) {
                throw RefreshTokens.invalid("refresh token idle past its inactivity lifetime")
            }
        } else {
            let outcome = try rotateOutcome()
            if case .reused(let token) = outcome {
                context.record(.refreshTokenReused, userID: token.userID, clientID: token.clientID, details: ["grant_id": token.grantID])
            }
            decided = refreshTokens.value(of: try Self.accept(outcome), presentedValue: value, presented: presented)
        }
        let alreadyDecided = decided
        let rule = ScopeRule.refresh(requestedScope: request["scope"], requestedAudience: request["audience"], family: grant)
        return GrantDraft(rule: rule) { decision throws(OAuthError) in
            let successorValue: String
            if let alreadyDecided { successorValue = alreadyDecided } else { successorValue = try rotate() }
            return TokenIssuance(client: client, user: user, grant: grant, scopes: decision.scopes, audience: decision.audience,
                                 nonce: nil, authTime: grant.authTime, sessionID: grant.sessionID, refreshToken: successorValue)
        }
    }

    /// A rotation or a retry goes on with its successor; reuse (the store has revoked the family), a
    /// revoked token or an unknown one is the one dead-token answer.
    static func accept(_ outcome: RefreshRotation) throws(OAuthError) -> RefreshToken {
        switch outcome {
        case .rotated(_, let successor), .retried(_, let successor):
            return successor
        case .reused(let token):
            throw RefreshTokens.invalid("refresh token reused; family \(token.grantID) revoked")
        case .revoked:
            throw RefreshTokens.invalid("refresh token (or its successor) revoked")
        case .unknown:
            throw RefreshTokens.invalid("unknown refresh token")
        }
    }

    /// The presented token with its grant, user and (`includingSession`) session: in one read when
    /// the store offers it, else from each store in turn. An `rt2` value without its family's MAC
    /// finds nothing.
    func loadFamily(_ value: String, refreshTokens: RefreshTokens, includingSession: Bool) throws(OAuthError) -> RefreshTokenFamily? {
        let key = RefreshTokenValue.key(for: value)
        return try storage { () throws(StorageError) -> RefreshTokenFamily? in
            if let reader = refreshTokens.familyReader {
                guard let family = try reader.family(key, includingSession: includingSession),
                      refreshTokens.familyMAC.checked(value, key: key, found: family.token) != nil else { return nil }
                return family
            }
            guard let token = refreshTokens.familyMAC.checked(value, key: key, found: try refreshTokens.store.find(key)) else { return nil }
            let grant = try grants.find(grantID: token.grantID)
            let session = includingSession ? try grant?.sessionID.flatMap { sessionID throws(StorageError) in
                try refreshTokens.sessions?.find(sessionID: sessionID)
            } : nil
            return RefreshTokenFamily(token: token, grant: grant, user: try users.find(userID: token.userID), session: session)
        }
    }
}
