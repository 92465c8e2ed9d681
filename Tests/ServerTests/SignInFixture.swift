import Foundation
import Testing
import TestSupport

/// A running daemon whose issuer is its real address, with helpers to create apps and users
/// through `idp-admin` and to walk the browser part of a sign-in.
struct SignInFixture {
    let daemon: Daemon
    let issuer: String
    /// What `idp-admin` gets besides the daemon's directory (the PostgreSQL tests' database settings).
    let adminEnvironment: [String: String]
    static let password = "Correct horse battery staple 7"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"  // RFC 7636 Appendix B
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    init(environment: [String: String] = [:], adminEnvironment: [String: String] = [:], directory: TemporaryDirectory? = nil) throws {
        let port = Daemon.freePort()
        issuer = "http://127.0.0.1:\(port)/"
        self.adminEnvironment = adminEnvironment
        daemon = try Daemon(environment: ["IDP_LISTEN": "127.0.0.1:\(port)", "IDP_ISSUER": issuer].merging(environment) { $1 },
                            directory: directory)
    }

    /// `idp-admin` in the daemon's directory, with `adminEnvironment`.
    func admin(_ arguments: [String], input: String = "") throws -> (status: Int32, stdout: String, stderr: String) {
        try AdminProcess.run(arguments, environment: adminEnvironment, directory: daemon.directory.path, input: input)
    }

    func createApp(_ type: String = "native", callbacks: [String] = ["com.example.app://127.0.0.1/ios/com.example.app/callback"],
                   extra: [String] = []) throws -> (clientID: String, secret: String?) {
        let result = try admin(["apps", "create", "--name", "Test \(type) app", "--type", type,
                                       "--callbacks", callbacks.joined(separator: ","), "--json"] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        // Any warnings (a second app of the same name) come as a list beside the strings.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (try #require(object["client_id"] as? String), object["client_secret"] as? String)
    }

    @discardableResult
    func createUser(_ email: String = "alice@example.com", name: String = "Alice") throws -> String {
        let result = try admin(["users", "create", "--email", email, "--name", name, "--password-stdin", "--json"],
                                      input: Self.password + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return try #require(object["user_id"] as? String)
    }

    func authorizeURL(clientID: String, redirectURI: String = "com.example.app://127.0.0.1/ios/com.example.app/callback",
                      extra: [(String, String)] = []) -> String {
        var items = [("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI),
                     ("scope", "openid profile email"), ("state", "state-123"), ("nonce", "nonce-456"),
                     ("code_challenge", Self.challenge), ("code_challenge_method", "S256")]
        for (key, value) in extra {
            items.removeAll { $0.0 == key }
            if !value.isEmpty { items.append((key, value)) }
        }
        var components = URLComponents(string: issuer + "authorize")!
        components.queryItems = items.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.percentEncodedQuery.map { issuer + "authorize?" + $0.replacingOccurrences(of: "+", with: "%2B") } ?? issuer + "authorize"
    }

    /// Submits the login form of `page` with the given credentials (or action).
    func submitLogin(_ browser: Browser, page: Curl.Response, email: String = "alice@example.com",
                     password: String = SignInFixture.password, action: String = "login", csrf: String? = nil) throws -> Curl.Response {
        let tx = try #require(HTMLForm.value(of: "tx", in: page.text))
        let formToken = try #require(HTMLForm.value(of: "csrf_token", in: page.text))
        let token = csrf ?? formToken
        return try browser.post(issuer + "login", form: [("tx", tx), ("csrf_token", token), ("email", email),
                                                         ("password", password), ("action", action)])
    }

    /// Authorize → form → resume; returns the callback URL.
    func signIn(_ browser: Browser, clientID: String, extra: [(String, String)] = []) throws -> String {
        let page = try browser.get(authorizeURL(clientID: clientID, extra: extra))
        #expect(page.status == 200)
        let posted = try submitLogin(browser, page: page)
        #expect(posted.status == 303)
        let resumed = try browser.get(try #require(posted.headers["location"]))
        #expect(resumed.status == 302)
        return try #require(resumed.headers["location"])
    }

    func redeem(code: String, clientID: String, verifier: String = SignInFixture.verifier,
                redirectURI: String = "com.example.app://127.0.0.1/ios/com.example.app/callback") throws -> Curl.Response {
        try Browser(directory: daemon.directory).post(issuer + "oauth/token", json: [
            "grant_type": "authorization_code", "client_id": clientID, "code": code, "code_verifier": verifier,
            "redirect_uri": redirectURI,
        ])
    }

    /// The claims of a compact JWS (no verification; the OIDC and interop tests verify signatures).
    static func claims(of jwt: String) throws -> [String: Any] {
        let part = String(jwt.split(separator: ".")[1])
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}
