import Model

/// Sign in with Apple's fixed endpoints, used when an `apple` connection does not override them
/// (`--issuer`, `--jwks-url`, `--token-url`, `--revoke-url`; tests point them at a local stand-in).
public enum AppleEndpoints {
    public static let issuer = "https://appleid.apple.com"
    public static let authorizeURL = "https://appleid.apple.com/auth/authorize"
    public static let jwksURL = "https://appleid.apple.com/auth/keys"
    public static let tokenURL = "https://appleid.apple.com/auth/token"
    public static let revokeURL = "https://appleid.apple.com/auth/revoke"
    /// The `aud` of every client-secret JWT, whatever the URLs point at.
    public static let clientSecretAudience = "https://appleid.apple.com"

    public static func issuer(_ connection: UpstreamConnection) -> String { connection.issuer ?? issuer }
    public static func jwksURL(_ connection: UpstreamConnection) -> String { connection.jwksURL ?? jwksURL }
    public static func tokenURL(_ connection: UpstreamConnection) -> String { connection.tokenURL ?? tokenURL }
    public static func revokeURL(_ connection: UpstreamConnection) -> String { connection.revokeURL ?? revokeURL }

    /// The client ids Apple may issue tokens to for this connection: the Services ID (web) and the
    /// bundle ids (`--native-audiences`).
    public static func clientIDs(_ connection: UpstreamConnection) -> [String] {
        [connection.clientID] + connection.nativeAudiences.filter { $0 != connection.clientID }
    }
}
