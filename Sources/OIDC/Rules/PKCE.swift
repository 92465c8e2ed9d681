import Crypto

/// Proof Key for Code Exchange (RFC 7636), S256 only.
///
/// `plain` is refused for every client and an omitted method counts as `plain` (RFC 7636
/// §4.3), so it is refused too; discovery lists only `S256`.
public enum PKCE {
    /// The only supported method.
    public static let s256 = "S256"

    /// RFC 7636 §4.1/§4.2 ABNF: 43–128 characters of `[A-Za-z0-9-._~]`.
    public static func isWellFormed(_ value: String) -> Bool {
        let bytes = value.utf8
        guard (43...128).contains(bytes.count) else { return false }
        return bytes.allSatisfy { ASCII.isLetter($0) || ASCII.isDigit($0) || "-._~".utf8.contains($0) }
    }

    /// The /authorize check (RFC 7636 §4.4.1, RFC 8252 §8.1): public clients must send a
    /// challenge; a sent challenge must be S256 and well-formed. Returns the challenge, or nil
    /// when a confidential client sent none.
    public static func checkChallenge(_ challenge: String?, method: String?, isPublicClient: Bool) throws(OAuthError) -> String? {
        guard let challenge, !challenge.isEmpty else {
            if method != nil {
                throw OAuthError(.invalidRequest, "code_challenge_method was sent without code_challenge")
            }
            if isPublicClient { throw OAuthError(.invalidRequest, "code challenge required (PKCE with S256)") }
            return nil
        }
        guard let method else {
            throw OAuthError(.invalidRequest, "code_challenge_method is required and must be S256 (plain is not supported)")
        }
        guard method == s256 else {
            throw OAuthError(.invalidRequest, "code_challenge_method must be S256", detail: "method \(method)")
        }
        guard isWellFormed(challenge) else {
            throw OAuthError(.invalidRequest, "code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~]")
        }
        return challenge
    }

    /// base64url(SHA-256(verifier)), RFC 7636 §4.2.
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(Digest.sha256(Array(verifier.utf8)))
    }

    /// True when `verifier` is well-formed and its S256 challenge equals `challenge` (constant time).
    public static func verify(verifier: String, challenge: String) -> Bool {
        guard isWellFormed(verifier) else { return false }
        return ConstantTime.equals(Array(Self.challenge(for: verifier).utf8), Array(challenge.utf8))
    }
}
