import Crypto
import FoundationEssentials
import Model

/// Issues authorization codes (RFC 6749 §4.1.2; RFC 9700 §4.5): 256 random bits, base64url,
/// stored only as a SHA-256 digest, valid for 60 seconds, bound to everything the token
/// request must repeat or will need.
public enum CodeIssuer {
    /// Seconds a code stays redeemable.
    public static let lifetime: TimeInterval = 60

    /// The digest a code is stored and looked up by.
    public static func hash(_ code: String) -> String { Digest.sha256Hex(Array(code.utf8)) }

    /// Creates and stores a code for `request`, authenticated by `session` of `user`; returns its value.
    public static func issue(request: AuthorizationRequest, session: Session, user: User, clock: any Clock,
                             codes: any AuthorizationCodeStore) throws(OAuthError) -> String {
        guard session.userID == user.userID else {
            throw OAuthError(.serverError, "internal error", detail: "session \(session.sessionID) belongs to another user")
        }
        let code = Random.token(bytes: 32)
        let now = clock.now
        let record = AuthorizationCode(
            codeHash: hash(code), clientID: request.clientID, userID: user.userID, sessionID: session.sessionID,
            redirectURI: request.redirectURI, scope: request.scope, audience: request.audience, nonce: request.nonce,
            codeChallenge: request.codeChallenge, codeChallengeMethod: request.codeChallengeMethod,
            authTime: session.authTime, createdAt: now, expiresAt: now.addingTimeInterval(lifetime))
        do {
            try codes.insert(record)
        } catch {
            throw OAuthError(storage: error)
        }
        return code
    }
}
