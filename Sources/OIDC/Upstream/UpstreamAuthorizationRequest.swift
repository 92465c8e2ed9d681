import Crypto
import FoundationEssentials
import Model

/// The redirect to an upstream provider's authorization endpoint (OpenID Connect Core §3.1.2.1) and
/// the secrets the callback needs to check its answer: `state` (RFC 6749 §10.12, bound to this
/// browser's login transaction), `nonce` (bound into the ID token) and a PKCE S256 verifier
/// (RFC 7636 §4.1–4.2). The pending values are sealed with the login transaction, never stored.
public struct UpstreamAuthorizationRequest: Sendable, Equatable {
    public let url: String
    public let state: String
    public let nonce: String
    public let codeVerifier: String

    /// - Parameters:
    ///   - authorizeURL: the connection's authorization endpoint (explicit or from discovery).
    ///   - callback: `{issuer}login/callback`.
    ///   - responseMode: `form_post` for Apple; nil for the query default.
    public init(connection: UpstreamConnection, authorizeURL: String, callback: String, responseMode: String? = nil,
                random: any RandomSource) {
        state = random.token(bytes: 32)
        nonce = random.token(bytes: 32)
        codeVerifier = random.token(bytes: 32)  // 43 base64url characters, RFC 7636 §4.1
        var scopes = connection.scopes
        if connection.strategy == .apple {
            // Apple knows `name` and `email` only; the default `profile` means the name there.
            scopes = scopes.map { $0 == "profile" ? "name" : $0 }
        }
        if !scopes.contains("openid") { scopes.insert("openid", at: 0) }
        var parameters: [(String, String)] = [
            ("response_type", "code"), ("client_id", connection.clientID), ("redirect_uri", callback),
            ("scope", scopes.joined(separator: " ")), ("state", state), ("nonce", nonce),
            ("code_challenge", Self.challenge(codeVerifier)), ("code_challenge_method", PKCE.s256),
        ]
        if let responseMode { parameters.append(("response_mode", responseMode)) }
        if let domain = connection.hostedDomain { parameters.append(("hd", domain)) }
        let query = parameters.map { AuthorizationResponse.percentEncode($0.0) + "=" + AuthorizationResponse.percentEncode($0.1) }
            .joined(separator: "&")
        url = authorizeURL + (authorizeURL.contains("?") ? "&" : "?") + query
    }

    /// BASE64URL(SHA256(verifier)), RFC 7636 §4.2.
    public static func challenge(_ verifier: String) -> String {
        Base64URL.encode(Digest.sha256(Array(verifier.utf8)))
    }
}
