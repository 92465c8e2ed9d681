import Crypto
import Foundation
import JOSE
import Model
import OIDC
import TestSupport
import Testing

/// Apple's client-secret JWT: what it says, that it verifies with the team key (ours and Python's
/// `cryptography` in the stand-in), how long one is reused, and a clear error for each missing piece.
@Suite struct AppleClientSecretTests {
    static let key = try! SigningKey.generate(.es256)
    static let pem: String = {
        let body = Data(try! key.pkcs8DER()).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n"
    }()

    static func connection(teamID: String? = "TEAM123456", keyID: String? = "KEY1234567", privateKey: String? = pem) -> UpstreamConnection {
        UpstreamConnection(name: "apple", strategy: .apple, clientID: "com.example.web", privateKey: privateKey, teamID: teamID, keyID: keyID,
                           nativeAudiences: ["com.example.app"], createdAt: Date(timeIntervalSince1970: 0))
    }

    func verified(_ secret: String) throws -> VerifiedJWS {
        try JWS.verify(secret) { kid in kid == "KEY1234567" ? (Self.key.publicKey, .es256) : nil }
    }

    @Test func theSecretIsAnES256JWTWithExactlyApplesClaims() throws {
        let clock = MutableClock(Date(timeIntervalSince1970: 1_800_000_000))
        let secret = try AppleClientSecret(clock: clock).secret(for: Self.connection(), clientID: "com.example.app")
        let jws = try verified(secret)
        #expect(jws.header == ["alg": .string("ES256"), "kid": .string("KEY1234567")])
        #expect(try jws.claims() == [
            "iss": .string("TEAM123456"), "sub": .string("com.example.app"), "aud": .string("https://appleid.apple.com"),
            "iat": .integer(1_800_000_000), "exp": .integer(1_800_003_600),
        ])
    }

    @Test func oneSecretIsReusedUntilFiveMinutesBeforeItExpires() throws {
        let clock = MutableClock(Date(timeIntervalSince1970: 1_800_000_000))
        let secrets = AppleClientSecret(clock: clock)
        let first = try secrets.secret(for: Self.connection(), clientID: "com.example.web")
        clock.advance(by: 3600 - 301)
        #expect(try secrets.secret(for: Self.connection(), clientID: "com.example.web") == first)
        // Another client id is another secret (its sub differs).
        #expect(try secrets.secret(for: Self.connection(), clientID: "com.example.app") != first)
        clock.advance(by: 2)
        let renewed = try secrets.secret(for: Self.connection(), clientID: "com.example.web")
        #expect(renewed != first)
        #expect(try verified(renewed).claims()["iat"] == .integer(1_800_000_000 + 3600 - 299))
        // A changed key id is a new secret at once.
        #expect(try secrets.secret(for: Self.connection(keyID: "KEY7654321"), clientID: "com.example.web") != renewed)
    }

    @Test(arguments: [
        ("no team id", connection(teamID: nil), "connection apple has no team id (--team-id) for its client secret"),
        ("no key id", connection(keyID: ""), "connection apple has no key id (--key-id) for its client secret"),
        ("no .p8", connection(privateKey: nil), "connection apple has no .p8 key (--private-key-file) for its client secret"),
        ("not PEM", connection(privateKey: "-----BEGIN PRIVATE KEY-----\n!!!\n-----END PRIVATE KEY-----\n"),
         "connection apple: the .p8 key is not a readable PKCS#8 PEM private key"),
        ("an RSA key", connection(privateKey: rsaPEM()), "connection apple: the .p8 key is not a P-256 (ES256) key"),
    ] as [(String, UpstreamConnection, String)])
    func aBrokenConnectionIsAClearConnectionError(label: String, connection: UpstreamConnection, message: String) {
        do {
            _ = try AppleClientSecret(clock: SystemClock()).secret(for: connection, clientID: "com.example.web")
            Issue.record("\(label): no error")
        } catch {
            #expect(error == .connection(message), "\(label)")
        }
    }

    static func rsaPEM() -> String {
        let der = try! SigningKey.generate(.rs256).pkcs8DER()
        return "-----BEGIN PRIVATE KEY-----\n" + Data(der).base64EncodedString(options: .lineLength64Characters) + "\n-----END PRIVATE KEY-----\n"
    }

    /// The stand-in checks the JWT with Python's `cryptography` against the team key it generated.
    @Test func appleStandInAcceptsItForANativeCode() throws {
        let stub = try AppleGoogleStub(.apple)
        defer { stub.stop() }
        let connection = UpstreamConnection(name: "apple", strategy: .apple, clientID: stub.clientID, privateKey: stub.privateKeyPEM,
                                            teamID: stub.teamID, keyID: stub.keyID, nativeAudiences: stub.nativeClientIDs,
                                            createdAt: Date())
        let secret = try AppleClientSecret(clock: SystemClock()).secret(for: connection, clientID: "com.example.app")
        let code = try stub.nativeCode(clientID: "com.example.app")
        let answer = try stub.redeem(form: [("grant_type", "authorization_code"), ("code", code), ("client_id", "com.example.app"),
                                            ("client_secret", secret)])
        #expect(answer.status == 200, "\(answer.json)")
        #expect(answer.json["refresh_token"] is String)
        // The same secret sent for the web client id is refused: its sub names the bundle id.
        let web = try stub.redeem(form: [("grant_type", "authorization_code"), ("code", try stub.nativeCode(clientID: stub.clientID)),
                                         ("client_id", stub.clientID), ("client_secret", secret)])
        #expect(web.status == 401)
        #expect((web.json["error_description"] as? String)?.contains("client_secret sub is 'com.example.app'") == true, "\(web.json)")
    }
}
