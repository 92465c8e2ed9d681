import Foundation

/// A local stand-in for Sign in with Apple or Google (`Tests/upstream/apple_google_stub.py`) on a
/// random loopback port: discovery, JWKS, `/authorize` (Apple's form_post with the first-time
/// `user` JSON, Google's redirect), the token endpoint (PKCE, single-use codes, Apple's ES256
/// client-secret JWT checked against the team key it generated), Apple's revoke endpoint, and
/// control calls that mint native ID tokens and codes, make revocation fail, and send signed
/// server-to-server notifications.
public final class AppleGoogleStub: @unchecked Sendable {
    public enum Mode: String, Sendable { case apple, google }

    public let mode: Mode
    public let port: Int
    /// The web client id (Apple: the Services ID).
    public let clientID: String
    /// Native client ids (Apple: bundle ids).
    public let nativeClientIDs: [String]
    public let teamID: String
    public let keyID: String
    /// Google's client secret.
    public let clientSecret: String
    /// Apple: the team's `.p8` key (PKCS#8 PEM) the stand-in checks client secrets against, and its file.
    public let privateKeyPEM: String
    public let privateKeyFile: String
    private let process: Process
    private let directory: TemporaryDirectory

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// The `iss` of its tokens (its base URL unless `issuer` was given).
    public let issuer: String
    public var discoveryURL: String { baseURL + "/.well-known/openid-configuration" }
    public var authorizeURL: String { baseURL + "/authorize" }
    public var tokenURL: String { baseURL + "/token" }
    public var jwksURL: String { baseURL + "/keys" }
    public var revokeURL: String { baseURL + "/revoke" }

    public static var scriptPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("upstream/apple_google_stub.py").path
    }

    /// Starts the stand-in; `issuer` overrides the `iss` of its tokens.
    public init(_ mode: Mode, clientID: String = "com.example.web", nativeClientIDs: [String] = ["com.example.app"],
                teamID: String = "TEAM123456", keyID: String = "KEY1234567", clientSecret: String = "google-secret",
                hostedDomain: String? = nil, issuer: String? = nil) throws {
        self.mode = mode
        self.clientID = clientID
        self.nativeClientIDs = nativeClientIDs
        self.teamID = teamID
        self.keyID = keyID
        self.clientSecret = clientSecret
        directory = try TemporaryDirectory("stub")
        privateKeyFile = directory.file("AuthKey.p8")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["python3", Self.scriptPath, "--mode", mode.rawValue, "--port", "0", "--client-id", clientID,
                         "--native-client-ids", nativeClientIDs.joined(separator: ",")]
        switch mode {
        case .apple: arguments += ["--team-id", teamID, "--key-id", keyID, "--p8-out", privateKeyFile]
        case .google: arguments += ["--client-secret", clientSecret]
        }
        if let hostedDomain { arguments += ["--hosted-domain", hostedDomain] }
        if let issuer { arguments += ["--issuer", issuer] }
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw UpstreamHTTPStubError.didNotStart }
            line.append(chunk)
        }
        let words = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard words.first == "listening", let bound = Int(words.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
            throw UpstreamHTTPStubError.didNotStart
        }
        port = bound
        self.issuer = issuer ?? "http://127.0.0.1:\(bound)"
        privateKeyPEM = mode == .apple ? (try String(contentsOfFile: privateKeyFile, encoding: .utf8)) : ""
    }

    public func stop() {
        process.stop(within: 3)
    }

    deinit { stop() }

    // MARK: - control calls

    /// Who signs in at the next `/authorize` (sub, email, email_verified, is_private_email, name, hd).
    public func setNextUser(_ fields: [String: Any]) throws {
        _ = try control("next-user", fields)
    }

    /// How an ID token is spoiled for a negative test.
    public enum Variant: String, Sendable { case none, hs256PublicKey = "hs256-public-key", unknownKid = "unknown-kid", expired, badSignature = "bad-signature" }

    /// A natively obtained ID token for `audience`; `nonce` as the claim is to read (Apple: the
    /// SHA-256 hex of the app's raw nonce), nil for none; `claims` overrides claims (NSNull removes one).
    public func idToken(audience: String, nonce: String?, subject: String? = nil, email: String? = nil, emailVerified: Bool? = nil,
                        privateEmail: Bool? = nil, variant: Variant? = nil, claims: [String: Any] = [:]) throws -> String {
        var body: [String: Any] = ["aud": audience, "claims": claims]
        if let nonce { body["nonce"] = nonce }
        if let subject { body["sub"] = subject }
        if let email { body["email"] = email }
        if let emailVerified { body["email_verified"] = emailVerified }
        if let privateEmail { body["is_private_email"] = privateEmail }
        if let variant { body["variant"] = variant.rawValue }
        guard let token = try control("id-token", body)["id_token"] as? String else { throw StubError("no id_token") }
        return token
    }

    /// A native authorization code redeemable at the token endpoint with `client_id=clientID` (a bundle id).
    public func nativeCode(clientID: String? = nil, subject: String? = nil, email: String? = nil, nonce: String? = nil) throws -> String {
        var body: [String: Any] = [:]
        if let clientID { body["client_id"] = clientID }
        if let subject { body["sub"] = subject }
        if let email { body["email"] = email }
        if let nonce { body["nonce"] = nonce }
        guard let code = try control("native-code", body)["code"] as? String else { throw StubError("no code") }
        return code
    }

    /// The next `times` revoke calls answer 503.
    public func failRevocations(times: Int) throws {
        _ = try control("fail-revoke", ["times": times])
    }

    /// Apple's notification event types.
    public enum Event: String, Sendable {
        case consentRevoked = "consent-revoked", accountDelete = "account-delete", emailDisabled = "email-disabled", emailEnabled = "email-enabled"
    }

    /// The JWT of an Apple server-to-server notification, for a test that posts `{"payload": JWT}` itself.
    public func notificationPayload(event: Event, subject: String, email: String? = nil, audience: String? = nil, issuer: String? = nil,
                                    iatOffset: Int = 0, forged: Bool = false, unsigned: Bool = false) throws -> String {
        var body: [String: Any] = ["type": event.rawValue, "sub": subject, "iat_offset": iatOffset]
        if let email { body["email"] = email }
        if let audience { body["aud"] = audience }
        if let issuer { body["iss"] = issuer }
        if forged { body["variant"] = "bad-signature" }
        if unsigned { body["variant"] = "none" }
        guard let payload = try control("notify", body)["payload"] as? String else { throw StubError("no payload") }
        return payload
    }

    /// Signs an Apple server-to-server notification and POSTs `{"payload": JWT}` to `url`; the status
    /// and body Gatehouse answered. `forged` signs it with a key not in the JWKS (same kid).
    public func notify(url: String, event: Event, subject: String, email: String? = nil, audience: String? = nil,
                       issuer: String? = nil, iatOffset: Int = 0, forged: Bool = false, unsigned: Bool = false) throws -> (status: Int, body: String) {
        var body: [String: Any] = ["url": url, "type": event.rawValue, "sub": subject, "iat_offset": iatOffset]
        if let email { body["email"] = email }
        if let audience { body["aud"] = audience }
        if let issuer { body["iss"] = issuer }
        if forged { body["variant"] = "bad-signature" }
        if unsigned { body["variant"] = "none" }
        let answer = try control("notify", body)
        return (answer["status"] as? Int ?? 0, answer["body"] as? String ?? "")
    }

    /// A revoke call that succeeded.
    public struct Revocation: Sendable {
        public let token: String
        public let clientID: String
        public let tokenTypeHint: String?
        /// The client-secret claims the stand-in verified with the team key.
        public let clientSecretClaims: [String: String]
        /// Whether the stand-in had issued the token.
        public let known: Bool
    }

    public func revocations() throws -> [Revocation] {
        let list = try fetch("/control/revoked")["revoked"] as? [[String: Any]] ?? []
        return list.map { entry in
            Revocation(token: entry["token"] as? String ?? "", clientID: entry["client_id"] as? String ?? "",
                       tokenTypeHint: entry["token_type_hint"] as? String,
                       clientSecretClaims: (entry["client_secret_claims"] as? [String: Any] ?? [:]).mapValues { "\($0)" },
                       known: entry["known"] as? Bool ?? false)
        }
    }

    /// Every token request: its form (without the secret), the client, the verified client-secret claims, the refusal.
    public func tokenRequests() throws -> [[String: Any]] {
        try fetch("/control/token-requests")["requests"] as? [[String: Any]] ?? []
    }

    /// Redeems a code at the token endpoint as a client would (for tests of the stand-in itself).
    public func redeem(form: [(String, String)]) throws -> (status: Int, json: [String: Any]) {
        let body = form.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        let response = try Curl.get(tokenURL, ["-X", "POST", "-H", "Content-Type: application/x-www-form-urlencoded", "--data-binary", body])
        return (response.status, (try? response.json()) ?? [:])
    }

    private func control(_ name: String, _ body: [String: Any]) throws -> [String: Any] {
        let data = try JSONSerialization.data(withJSONObject: body)
        let response = try Curl.get(baseURL + "/control/" + name,
                                    ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", String(decoding: data, as: UTF8.self)])
        guard response.status == 200 else { throw StubError("control/\(name) answered \(response.status): \(response.text)") }
        return try response.json()
    }

    private func fetch(_ path: String) throws -> [String: Any] {
        let response = try Curl.get(baseURL + path)
        guard response.status == 200 else { throw StubError("\(path) answered \(response.status)") }
        return try response.json()
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    public struct StubError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
