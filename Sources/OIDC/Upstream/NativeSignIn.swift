import Crypto
import FoundationEssentials
import JOSE
import Model

/// The native half of the upstream connections (README "Sign in with Apple and Google"): an app
/// signed the user in with Apple or Google itself (ASAuthorizationAppleIDProvider, GoogleSignIn)
/// and hands Gatehouse what it got — an ID token, or Apple's authorization code — in a token
/// exchange (RFC 8693). Only the application's enabled connections are considered, and only
/// tokens for one of a connection's `--native-audiences` (the app's own client id is not enough:
/// any app can get a token for its own id).
public struct NativeSignIn: Sendable {
    public let upstream: UpstreamAuthenticator

    public init(upstream: UpstreamAuthenticator) {
        self.upstream = upstream
    }

    /// Verified claims and the connection they belong to; the user is found or created later
    /// (`UpstreamAuthenticator.signIn`), once the token request passed its scope checks.
    public struct Verified: Sendable {
        public var claims: [String: JSONValue]
        public var connection: UpstreamConnection
        /// Apple's refresh token, when a code was redeemed, and the client id (bundle id) that redeemed it.
        public var refreshToken: String?
        public var redeemedBy: String?
    }

    /// A natively obtained ID token. `nonce` is the raw value the app generated: Apple's token
    /// carries its SHA-256 in lowercase hex (the app passes the hash to Apple), Google's and any
    /// other provider's the raw value. Missing on either side is refused: without it a stolen ID
    /// token could be replayed.
    public func verifyIDToken(_ token: String, nonce: String?, connection name: String?, client: Client) throws(UpstreamError) -> Verified {
        guard let nonce, !nonce.isEmpty else { throw .request("nonce is required: send the raw nonce the app gave the provider") }
        let now = upstream.clock.now
        let issuer = UpstreamIDTokenVerifier.unverifiedClaims(token)?["iss"]?.stringValue
        let (connection, urls) = try pick(name, client: client, now: now) { $1.issuer == issuer }
        guard !connection.nativeAudiences.isEmpty else {
            throw .connection("connection \(connection.name) has no native audiences (idp-admin connections update --native-audiences)")
        }
        let expected = connection.strategy == .apple ? Digest.sha256Hex(Array(nonce.utf8)) : nonce
        let claims = try upstream.verifier.verify(token, expecting: .init(issuer: urls.issuer, jwksURL: urls.jwksURL,
                                                                          audiences: connection.nativeAudiences, nonce: expected), now: now)
        try UpstreamAuthenticator.checkHostedDomain(claims, connection: connection)
        return Verified(claims: claims, connection: connection)
    }

    /// Apple's native authorization code (Auth0.swift `login(appleAuthorizationCode:)`): redeemed
    /// at Apple's token endpoint as the app's bundle id — the connection's first native audience —
    /// with a client secret for that id; the ID token Apple answers with is verified. A code is
    /// good once at Apple, so a replay is refused there. `userProfile` is Auth0.swift's JSON string
    /// with the name, which only the app saw.
    public func redeemAppleCode(_ code: String, userProfile: String?, connection name: String?,
                                client: Client) throws(UpstreamError) -> Verified {
        let now = upstream.clock.now
        let (connection, urls) = try pick(name, client: client, now: now) { connection, _ in connection.strategy == .apple }
        guard let bundleID = connection.nativeAudiences.first else {
            throw .connection("connection \(connection.name) has no native audiences (idp-admin connections update --native-audiences)")
        }
        let tokens = try upstream.redemption.redeem(code, connection: connection, clientID: bundleID, tokenURL: urls.tokenURL,
                                                    redirectURI: nil, codeVerifier: nil)
        var claims = try upstream.verifier.verify(tokens.idToken, expecting: .init(issuer: urls.issuer, jwksURL: urls.jwksURL,
                                                                                   audiences: [bundleID], nonce: nil), now: now)
        if let userProfile { AppleUserField.merge(userProfile, into: &claims) }
        return Verified(claims: claims, connection: connection, refreshToken: tokens.refreshToken, redeemedBy: bundleID)
    }

    /// The application's enabled connection named `name`, or else the first that `matches`.
    private func pick(_ name: String?, client: Client, now: Date,
                      matches: (UpstreamConnection, UpstreamEndpoints) -> Bool) throws(UpstreamError) -> (UpstreamConnection, UpstreamEndpoints) {
        if let name {
            let connection = try upstream.enabledConnection(name, client: client)
            let urls = try upstream.endpoints.endpoints(for: connection, now: now)
            guard matches(connection, urls) else { throw .request("the token does not belong to connection \(name)") }
            return (connection, urls)
        }
        let names = (try? upstream.stores.connections.enabled(clientID: client.clientID)) ?? []
        for candidate in names {
            guard let connection = try? upstream.stores.connections.find(name: candidate),
                  let urls = try? upstream.endpoints.endpoints(for: connection, now: now) else { continue }
            if matches(connection, urls) { return (connection, urls) }
        }
        throw .connection("no connection enabled for this application accepts this token")
    }
}
