import Crypto
import FoundationEssentials
import Model

extension TokenEndpoint {
    // MARK: - authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.6, RFC 9700 §4.8.2)

    /// The code is redeemed (burnt) and checked first; the scope and audience stored with it are
    /// screened again by the user rule, since an API's scopes may have changed since `/authorize`.
    func authorizationCodeGrant(_ request: TokenRequest, client: AuthenticatedClient) throws(OAuthError) -> GrantDraft {
        guard let code = request["code"], !code.isEmpty else { throw OAuthError(.invalidRequest, "code is required") }
        let now = clock.now
        let stored = try redeemCode(code, at: now)
        try checkCodeExpiry(stored, now: now)
        try checkCodeClient(stored, client: client.client)
        try checkCodeRedirectURI(stored, redirectURI: request["redirect_uri"])
        try checkCodeVerifier(stored, verifier: request["code_verifier"])
        let user = try activeUser(stored.userID)
        return GrantDraft(rule: .user(scope: ScopeList.tokens(stored.scope), audience: stored.audience)) { decision throws(OAuthError) in
            let grant = Grant(grantID: Random.token(bytes: 16), clientID: stored.clientID, userID: stored.userID,
                              sessionID: stored.sessionID, scope: decision.scopes.joined(separator: " "), audience: decision.audience,
                              authTime: stored.authTime, createdAt: now)
            try storage { () throws(StorageError) in
                try grants.create(grant)
                try codes.attachGrant(codeHash: stored.codeHash, grantID: grant.grantID)
            }
            var refreshToken: String?
            if issuesRefreshToken(scopes: decision.scopes, client: client.client) {
                refreshToken = try issueFirstRefreshToken(grant: grant, client: client.client, userID: stored.userID, now: now)
            }
            return TokenIssuance(client: client.client, user: user, grant: grant, scopes: decision.scopes, audience: decision.audience,
                                 nonce: stored.nonce, authTime: stored.authTime, sessionID: stored.sessionID, refreshToken: refreshToken)
        }
    }

    /// Marks the code used (atomically, before any other check, so a failed attempt burns it).
    /// A replay revokes the grant the code issued (RFC 6749 §4.1.2).
    func redeemCode(_ code: String, at now: Date) throws(OAuthError) -> AuthorizationCode {
        let codeHash = CodeIssuer.hash(code)
        let redemption = try storage { () throws(StorageError) in try codes.redeem(codeHash: codeHash, at: now) }
        switch redemption {
        case .redeemed(let stored):
            return stored
        case .replayed(let stored):
            if let grantID = stored.grantID {
                try storage { () throws(StorageError) in try grants.revoke(grantID: grantID, at: now, reason: "authorization code replayed") }
            }
            throw OAuthError(.invalidGrant, "the authorization code is invalid", detail: "code replayed; grant \(stored.grantID ?? "none") revoked")
        case .unknown:
            throw OAuthError(.invalidGrant, "the authorization code is invalid", detail: "unknown code")
        }
    }

    func checkCodeExpiry(_ code: AuthorizationCode, now: Date) throws(OAuthError) {
        guard now < code.expiresAt else {
            throw OAuthError(.invalidGrant, "the authorization code is invalid", detail: "code expired")
        }
    }

    /// RFC 6749 §4.1.3: the code was issued to the authenticated client.
    func checkCodeClient(_ code: AuthorizationCode, client: Client) throws(OAuthError) {
        guard Array(code.clientID.utf8) == Array(client.clientID.utf8) else {
            throw OAuthError(.invalidGrant, "the authorization code is invalid", detail: "code of \(code.clientID) used by \(client.clientID)")
        }
    }

    /// RFC 6749 §4.1.3: `redirect_uri` byte-equal to the one sent to /authorize.
    func checkCodeRedirectURI(_ code: AuthorizationCode, redirectURI: String?) throws(OAuthError) {
        guard let redirectURI, Array(redirectURI.utf8) == Array(code.redirectURI.utf8) else {
            throw OAuthError(.invalidGrant, "redirect_uri does not match the authorization request")
        }
    }

    /// RFC 7636 §4.6; a verifier without a stored challenge is a downgrade (RFC 9700 §4.8.2).
    func checkCodeVerifier(_ code: AuthorizationCode, verifier: String?) throws(OAuthError) {
        guard let challenge = code.codeChallenge else {
            if verifier != nil {
                throw OAuthError(.invalidGrant, "code_verifier sent but the authorization request had no code_challenge")
            }
            return
        }
        guard let verifier else { throw OAuthError(.invalidGrant, "code_verifier is required") }
        guard code.codeChallengeMethod == PKCE.s256, PKCE.verify(verifier: verifier, challenge: challenge) else {
            throw OAuthError(.invalidGrant, "code_verifier does not match the code_challenge")
        }
    }

    /// The user still exists and is not blocked (negative-tests D08).
    func activeUser(_ userID: String) throws(OAuthError) -> User {
        let found = try storage { () throws(StorageError) in try users.find(userID: userID) }
        guard let user = found, !user.blocked else {
            throw OAuthError(.invalidGrant, "the authorization code is invalid", detail: "user \(userID) missing or blocked")
        }
        return user
    }
}
