import JOSE

/// The OpenID Provider Metadata served at `/.well-known/openid-configuration`
/// (OpenID Connect Discovery 1.0 §3, RFC 8414). Every URL derives from the configured
/// issuer, never from the request.
public struct DiscoveryDocument: Sendable {
    public let issuer: String

    /// - Parameter issuer: the issuer URL, ending in `/`.
    public init(issuer: String) {
        precondition(issuer.hasSuffix("/"), "the issuer must end in /")
        self.issuer = issuer
    }

    /// The endpoint paths, relative to the issuer (Auth0's names, so SDKs find them).
    public enum Path {
        public static let authorize = "authorize"
        public static let token = "oauth/token"
        public static let userinfo = "userinfo"
        public static let jwks = ".well-known/jwks.json"
        public static let revoke = "oauth/revoke"
        public static let introspect = "oauth/introspect"
        public static let endSession = "oidc/logout"
        public static let discovery = ".well-known/openid-configuration"
    }

    /// The metadata as a JSON object. Only endpoints and grants that are served are advertised.
    public var metadata: [String: JSONValue] {
        [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + Path.authorize),
            "token_endpoint": .string(issuer + Path.token),
            "userinfo_endpoint": .string(issuer + Path.userinfo),
            "jwks_uri": .string(issuer + Path.jwks),
            "revocation_endpoint": .string(issuer + Path.revoke),
            "revocation_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post", "none"]),
            "introspection_endpoint": .string(issuer + Path.introspect),
            "introspection_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post"]),
            "end_session_endpoint": .string(issuer + Path.endSession),
            "response_types_supported": strings(["code"]),
            "response_modes_supported": strings(["query", "form_post", "web_message"]),
            "grant_types_supported": strings(["authorization_code", "refresh_token", "client_credentials"]),
            "subject_types_supported": strings(["public"]),
            "id_token_signing_alg_values_supported": strings(["RS256", "ES256"]),
            "code_challenge_methods_supported": strings(["S256"]),
            "token_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post", "none"]),
            "scopes_supported": strings(["openid", "profile", "email", "offline_access"]),
            "claims_supported": strings(["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "azp", "sid",
                                         "name", "given_name", "family_name", "nickname", "picture", "updated_at",
                                         "email", "email_verified"]),
            "authorization_response_iss_parameter_supported": .bool(true),
            "request_parameter_supported": .bool(false),
            "request_uri_parameter_supported": .bool(false),
        ]
    }

    private func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }

    /// Stable JSON bytes (sorted keys, unescaped slashes), rendered once and cached by the caller.
    public func jsonBytes() -> [UInt8] {
        // Encoding only fails on a non-finite number, which `metadata` never holds.
        try! JSONValue.object(metadata).jsonBytes()
    }
}
