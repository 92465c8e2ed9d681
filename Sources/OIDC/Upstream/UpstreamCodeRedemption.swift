import FoundationEssentials
import JOSE
import Model

/// The client secret Gatehouse presents to a provider for one of a connection's client ids: the
/// stored secret, or for Apple a short-lived ES256 JWT made from the team's `.p8` key.
public protocol UpstreamClientSecrets: Sendable {
    func secret(for connection: UpstreamConnection, clientID: String) throws(UpstreamError) -> String?
}

/// The connection's stored secret, whatever the client id.
public struct StoredUpstreamSecrets: UpstreamClientSecrets {
    public init() {}
    public func secret(for connection: UpstreamConnection, clientID: String) throws(UpstreamError) -> String? { connection.clientSecret }
}

/// Apple's connections sign a client-secret JWT with their `.p8` key (`AppleClientSecret`); a
/// connection given a plain secret instead (`--client-secret-stdin`) and every other one uses that.
public struct ConnectionClientSecrets: UpstreamClientSecrets {
    public let apple: AppleClientSecret

    public init(apple: AppleClientSecret) {
        self.apple = apple
    }

    public func secret(for connection: UpstreamConnection, clientID: String) throws(UpstreamError) -> String? {
        if connection.strategy == .apple && connection.privateKey != nil { return try apple.secret(for: connection, clientID: clientID) }
        return connection.clientSecret
    }
}

/// What a provider's token endpoint answered to a code (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3).
public struct UpstreamTokens: Sendable, Equatable {
    public var idToken: String
    /// Apple's is what account deletion revokes.
    public var refreshToken: String?
}

/// Redeems an upstream authorization code (RFC 6749 §4.1.3) with its PKCE verifier (RFC 7636 §4.5).
/// Apple and Google take the secret in the body; any other provider gets HTTP Basic, the method every
/// OAuth server must support (RFC 6749 §2.3.1).
public struct UpstreamCodeRedemption: Sendable {
    public let fetcher: any UpstreamFetcher
    public let secrets: any UpstreamClientSecrets

    public init(fetcher: any UpstreamFetcher, secrets: any UpstreamClientSecrets) {
        self.fetcher = fetcher
        self.secrets = secrets
    }

    /// - Parameters:
    ///   - clientID: the id the code was issued to (the connection's, or a native app's bundle id).
    ///   - redirectURI: the one the authorization request named; nil for a native code, which had none.
    public func redeem(_ code: String, connection: UpstreamConnection, clientID: String, tokenURL: String, redirectURI: String?,
                       codeVerifier: String?) throws(UpstreamError) -> UpstreamTokens {
        var fields: [(String, String)] = [("grant_type", "authorization_code"), ("code", code)]
        if let redirectURI { fields.append(("redirect_uri", redirectURI)) }
        if let codeVerifier { fields.append(("code_verifier", codeVerifier)) }
        let secret = try secrets.secret(for: connection, clientID: clientID)
        var basic: (user: String, password: String)?
        if connection.strategy == .oidc, let secret {
            basic = (clientID, secret)  // The fetcher form-encodes both (RFC 6749 §2.3.1).
        } else {
            fields.append(("client_id", clientID))
            if let secret { fields.append(("client_secret", secret)) }
        }
        let response = try fetcher.postForm(tokenURL, fields: fields, basic: basic)
        let body = (try? JSONValue(parsing: response.body)).flatMap { value -> [String: JSONValue]? in
            if case .object(let object) = value { object } else { nil }
        }
        guard response.status == 200 else {
            let error = body?["error"]?.stringValue ?? "no error code"
            if response.status == 400 && error == "invalid_grant" { throw .codeRefused("token endpoint answered invalid_grant") }
            throw .unreachable("token endpoint answered \(response.status) \(error)")
        }
        guard let idToken = body?["id_token"]?.stringValue, !idToken.isEmpty else {
            throw .unreachable("token endpoint answered without an id_token")
        }
        return UpstreamTokens(idToken: idToken, refreshToken: body?["refresh_token"]?.stringValue)
    }
}
