import Crypto
import Foundation
import KeyManagement
import Model
import Settings
import Storage
import Testing
import TestSupport

/// Sign in with Apple and Google against their local stand-in (`Tests/upstream/apple_google_stub.py`)
/// and a real daemon: Apple's form_post with the `user` JSON of the first authorization, its string
/// booleans, its `.p8` client secret checked by the stand-in, the hashed nonce and the native code;
/// Google's boolean `email_verified` and the `hd` restriction, in the browser and natively.
@Suite("Sign in with Apple and Google", .serialized)
struct AppleGoogleSignInTests {
    static let grant = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let idTokenType = "urn:ietf:params:oauth:token-type:id_token"
    static let appleCodeType = "http://auth0.com/oauth/token-type/apple-authz-code"

    /// A daemon with one connection to a stand-in, enabled for one native app.
    struct Setup {
        let stub: AppleGoogleStub
        let fixture: SignInFixture
        let appID: String
        let name: String

        init(_ mode: AppleGoogleStub.Mode, hostedDomain: String? = nil) throws {
            stub = try AppleGoogleStub(mode, hostedDomain: hostedDomain)
            fixture = try SignInFixture()
            name = mode.rawValue
            var arguments = ["connections", "create", "--name", name, "--strategy", name, "--client-id", stub.clientID,
                             "--authorize-url", stub.authorizeURL, "--token-url", stub.tokenURL, "--jwks-url", stub.jwksURL,
                             "--issuer", stub.issuer, "--native-audiences", stub.nativeClientIDs.joined(separator: ",")]
            var input = ""
            switch mode {
            case .apple:
                arguments += ["--team-id", stub.teamID, "--key-id", stub.keyID, "--private-key-file", stub.privateKeyFile,
                              "--revoke-url", stub.revokeURL]
            case .google:
                arguments += ["--client-secret-stdin"]
                input = stub.clientSecret + "\n"
            }
            if let hostedDomain { arguments += ["--hosted-domain", hostedDomain] }
            let created = try fixture.daemon.admin(arguments, input: input)
            #expect(created.status == 0, "\(created.stderr)")
            appID = try fixture.createApp().clientID
            #expect(try fixture.daemon.admin(["apps", "update", appID, "--connections", name]).status == 0)
        }

        /// `/authorize?connection=` → the stand-in → its answer back to our callback (Apple: the
        /// auto-submitted form_post, re-posted as the browser would). Returns our callback's answer.
        func browserSignIn(_ browser: Browser) throws -> Curl.Response {
            let start = try browser.get(fixture.authorizeURL(clientID: appID, extra: [("connection", name)]))
            #expect(start.status == 302, "\(start.text)")
            let upstream = try Curl.get(try #require(start.headers["location"]))
            switch stub.mode {
            case .google:
                #expect(upstream.status == 302)
                return try browser.get(try #require(upstream.headers["location"]))
            case .apple:
                #expect(upstream.status == 200, "\(upstream.text)")
                let action = try #require(Self.attribute("action", in: upstream.text))
                #expect(action == fixture.issuer + "login/callback")
                return try browser.post(action, form: Self.hiddenFields(upstream.text))
            }
        }

        /// Callback → continuation → code → our tokens; the ID token's claims.
        func finish(_ browser: Browser, _ callback: Curl.Response) throws -> [String: Any] {
            #expect(callback.status == 303, "\(callback.text)")
            let resumed = try browser.get(try #require(callback.headers["location"]))
            let location = try #require(resumed.headers["location"])
            let code = try #require(queryParameters(of: location.replacingOccurrences(of: "com.example.app://", with: "https://"))["code"])
            let tokens = try fixture.redeem(code: code, clientID: appID).json()
            return try SignInFixture.claims(of: try #require(tokens["id_token"] as? String))
        }

        func exchange(_ fields: [String: String]) throws -> Curl.Response {
            var body: [String: Any] = ["grant_type": AppleGoogleSignInTests.grant, "client_id": appID,
                                       "scope": "openid profile email offline_access"]
            for (key, value) in fields { body[key] = value }
            return try Browser(directory: fixture.daemon.directory).post(fixture.issuer + "oauth/token", json: body)
        }

        /// The daemon's store, opened beside it (SQLite allows it), and the key Apple's tokens are sealed with.
        func upstreamTokens() throws -> (Store, SQLiteUpstreamTokenStore) {
            var settings = Settings()
            settings.database = fixture.daemon.directory.file("data/idp.sqlite3")
            let store = try Store(path: settings.database)
            let key = try KeyManager.open(store: store, settings: settings).derivedKey(purpose: UpstreamTokenKey.purpose)
            return (store, SQLiteUpstreamTokenStore(store: store, key: key))
        }

        static func attribute(_ name: String, in html: String) -> String? {
            guard let range = html.range(of: name + "=\"") else { return nil }
            let rest = html[range.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]).replacingOccurrences(of: "&quot;", with: "\"")
                .replacingOccurrences(of: "&amp;", with: "&") }
        }

        static func hiddenFields(_ html: String) -> [(String, String)] {
            html.components(separatedBy: "<input type=\"hidden\" ").dropFirst().compactMap { part in
                guard let name = attribute("name", in: part), let value = attribute("value", in: part) else { return nil }
                return (name, value)
            }
        }
    }

    static func sha256Hex(_ text: String) -> String {
        Digest.sha256(Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    @Test func appleInTheBrowserKeepsTheNameOfTheFirstAuthorizationAndTheRefreshToken() throws {
        let setup = try Setup(.apple)
        defer { setup.stub.stop() }
        try setup.stub.setNextUser(["sub": "000777.apple.taro", "email": "taro@privaterelay.appleid.com", "email_verified": true,
                                    "is_private_email": true, "name": ["firstName": "Taro", "lastName": "Yamada"]])
        let browser = Browser(directory: setup.fixture.daemon.directory)
        let claims = try setup.finish(browser, try setup.browserSignIn(browser))
        #expect(claims["sub"] as? String == "apple|apple|000777.apple.taro")
        #expect(claims["email"] as? String == "taro@privaterelay.appleid.com")
        #expect(claims["email_verified"] as? Bool == true)  // Apple's "true", read as a boolean
        #expect(claims["name"] as? String == "Taro Yamada" && claims["given_name"] as? String == "Taro")
        // The stand-in verified our ES256 client secret for the Services ID.
        let requests = try setup.stub.tokenRequests()
        #expect(requests.last?["client_id"] as? String == setup.stub.clientID)
        #expect((requests.last?["problem"] as? String ?? "") == "")
        // Apple's refresh token is kept, sealed, with the client id that redeemed it.
        let (store, tokens) = try setup.upstreamTokens()
        defer { store.close() }
        #expect(try tokens.refreshToken(connection: "apple", subject: "000777.apple.taro")?.clientID == setup.stub.clientID)

        // The second authorization carries no name: the first one's stays.
        let again = Browser(directory: setup.fixture.daemon.directory)
        let second = try setup.finish(again, try setup.browserSignIn(again))
        #expect(second["sub"] as? String == "apple|apple|000777.apple.taro")
        #expect(second["name"] as? String == "Taro Yamada")
    }

    @Test func googleInTheBrowserHonoursTheHostedDomain() throws {
        let setup = try Setup(.google, hostedDomain: "example.com")
        defer { setup.stub.stop() }
        try setup.stub.setNextUser(["sub": "1089", "email": "kenji@example.com", "email_verified": true, "hd": "example.com"])
        let browser = Browser(directory: setup.fixture.daemon.directory)
        let claims = try setup.finish(browser, try setup.browserSignIn(browser))
        #expect(claims["sub"] as? String == "google-oauth2|google|1089")
        #expect(claims["email_verified"] as? Bool == true)

        try setup.stub.setNextUser(["sub": "2001", "email": "eve@other.example", "email_verified": true, "hd": "other.example"])
        let outsider = Browser(directory: setup.fixture.daemon.directory)
        let refused = try setup.browserSignIn(outsider)
        #expect(refused.status == 502 && refused.text.contains("upstream_failed"))
        #expect(setup.fixture.daemon.standardError.contains("hd other.example is not example.com"))
    }

    struct NativeRow: Sendable, CustomStringConvertible {
        let description: String
        /// The nonce claim in the token: "hash" for sha256hex(raw), "raw", or nil for none.
        let tokenNonce: String?
        var requestNonce: String? = "raw-nonce-42"
        var audience: String? = nil
        var variant: AppleGoogleStub.Variant? = nil
        /// Claims the stand-in writes instead of its own.
        var claims: [String: String] = [:]
        /// Request fields besides the token and nonce.
        var extra: [String: String] = [:]
        let error: String?
        var message: String = ""
    }

    static let appleRows: [NativeRow] = [
        NativeRow(description: "the hashed nonce", tokenNonce: "hash", error: nil),
        NativeRow(description: "the raw nonce where its hash is due", tokenNonce: "raw", error: "invalid_grant",
                  message: "the ID token was refused: nonce mismatch"),
        NativeRow(description: "no nonce in the token", tokenNonce: nil, error: "invalid_grant", message: "the ID token was refused: nonce missing"),
        NativeRow(description: "no nonce in the request", tokenNonce: "hash", requestNonce: nil, error: "invalid_request",
                  message: "nonce is required"),
        NativeRow(description: "the Services ID instead of a native audience", tokenNonce: "hash", audience: "com.example.web",
                  error: "invalid_grant", message: "the ID token was refused: aud com.example.web is not ours"),
        NativeRow(description: "alg none", tokenNonce: "hash", variant: AppleGoogleStub.Variant.none, error: "invalid_grant",
                  message: "the ID token was refused: alg none is not allowed"),
        NativeRow(description: "HS256 with the public key", tokenNonce: "hash", variant: .hs256PublicKey, error: "invalid_grant",
                  message: "the ID token was refused: alg HS256 is not allowed"),
        NativeRow(description: "unknown kid", tokenNonce: "hash", variant: .unknownKid, error: "invalid_grant",
                  message: "the ID token was refused: unknown kid"),
        NativeRow(description: "expired", tokenNonce: "hash", variant: .expired, error: "invalid_grant", message: "the ID token was refused: expired"),
        NativeRow(description: "bad signature", tokenNonce: "hash", variant: .badSignature, error: "invalid_grant",
                  message: "the ID token was refused: bad signature"),
        NativeRow(description: "another issuer", tokenNonce: "hash", claims: ["iss": "https://appleid.example.net"], error: "invalid_request",
                  message: "no connection enabled for this application accepts this token"),
        NativeRow(description: "another issuer for the named connection", tokenNonce: "hash", claims: ["iss": "https://appleid.example.net"],
                  extra: ["connection": "apple"], error: "invalid_request", message: "the token does not belong to connection apple"),
    ]

    @Test func appleNativeIDTokens() throws {
        let setup = try Setup(.apple)
        defer { setup.stub.stop() }
        for row in Self.appleRows {
            let raw = "raw-nonce-42"
            let claimed: String? = switch row.tokenNonce {
            case "hash"?: Self.sha256Hex(raw)
            case "raw"?: raw
            default: nil
            }
            let token = try setup.stub.idToken(audience: row.audience ?? "com.example.app", nonce: claimed, subject: "000555.native",
                                               email: "hana@example.com", emailVerified: true, variant: row.variant, claims: row.claims)
            var fields = ["subject_token": token, "subject_token_type": Self.idTokenType].merging(row.extra) { $1 }
            if let nonce = row.requestNonce { fields["nonce"] = nonce }
            let answer = try setup.exchange(fields)
            let json = try answer.json()
            if let error = row.error {
                #expect(answer.status == 400, "\(row): \(answer.text)")
                #expect(json["error"] as? String == error, "\(row): \(json)")
                #expect((json["error_description"] as? String ?? "").hasPrefix(row.message), "\(row): \(json)")
            } else {
                #expect(answer.status == 200, "\(row): \(answer.text)")
                let claims = try SignInFixture.claims(of: try #require(json["id_token"] as? String))
                #expect(claims["sub"] as? String == "apple|apple|000555.native")
            }
        }
        // Only the accepted row created a user.
        let listed = try setup.fixture.daemon.admin(["users", "list", "--json"])
        #expect(listed.stdout.components(separatedBy: "apple|apple|").count == 2, "\(listed.stdout)")
    }

    @Test func appleNativeCodeAsAuth0SwiftSendsItAndItsReplay() throws {
        let setup = try Setup(.apple)
        defer { setup.stub.stop() }
        let code = try setup.stub.nativeCode(clientID: "com.example.app", subject: "000999.code", email: "ken@example.com")
        let fields = ["subject_token": code, "subject_token_type": Self.appleCodeType,
                      "user_profile": #"{"name":{"firstName":"Ken","lastName":"Sato"}}"#]
        let answer = try setup.exchange(fields)
        #expect(answer.status == 200, "\(answer.text)")
        let claims = try SignInFixture.claims(of: try #require(try answer.json()["id_token"] as? String))
        #expect(claims["sub"] as? String == "apple|apple|000999.code" && claims["name"] as? String == "Ken Sato")
        // Redeemed as the bundle id, whose client secret the stand-in checked; the refresh token kept for that id.
        #expect(try setup.stub.tokenRequests().last?["client_id"] as? String == "com.example.app")
        let (store, tokens) = try setup.upstreamTokens()
        defer { store.close() }
        #expect(try tokens.refreshToken(connection: "apple", subject: "000999.code")?.clientID == "com.example.app")

        let replay = try setup.exchange(fields)
        #expect(replay.status == 400)
        let json = try replay.json()
        #expect(json["error"] as? String == "invalid_grant")
        #expect(json["error_description"] as? String
                == "the Apple authorization code was refused (used, expired or not issued to this app)")
    }

    @Test func googleNativeTakesTheRawNonceAndTheHostedDomain() throws {
        let setup = try Setup(.google, hostedDomain: "example.com")
        defer { setup.stub.stop() }
        let good = try setup.stub.idToken(audience: "com.example.app", nonce: "raw-g", subject: "31", email: "a@example.com",
                                          emailVerified: true, claims: ["hd": "example.com"])
        let ok = try setup.exchange(["subject_token": good, "subject_token_type": Self.idTokenType, "nonce": "raw-g"])
        #expect(ok.status == 200, "\(ok.text)")
        let hashed = try setup.stub.idToken(audience: "com.example.app", nonce: Self.sha256Hex("raw-g"), subject: "31",
                                            claims: ["hd": "example.com"])
        let refusedHash = try setup.exchange(["subject_token": hashed, "subject_token_type": Self.idTokenType, "nonce": "raw-g"])
        #expect(try refusedHash.json()["error_description"] as? String == "the ID token was refused: nonce mismatch")
        let outsider = try setup.stub.idToken(audience: "com.example.app", nonce: "raw-g", subject: "32", claims: ["hd": "other.example"])
        let refusedDomain = try setup.exchange(["subject_token": outsider, "subject_token_type": Self.idTokenType, "nonce": "raw-g"])
        #expect(try refusedDomain.json()["error_description"] as? String == "the ID token was refused: hd other.example is not example.com")
    }
}
