import Crypto
import Foundation
import HTTP
import Model
import Storage
import TestSupport

/// The daemon's routes in-process (`RouteHarness`) with one native app, one confidential app and
/// one user, and the hops of a sign-in as helpers: what the negative-catalogue suites drive.
struct CatalogueRig {
    static let callback = "com.example.app://id.example.com/ios/com.example.app/callback"
    static let webCallback = "https://web.example.com/callback"
    static let logoutURL = "https://app.example.com/bye"
    static let email = "alice@example.com"
    static let password = "right password"
    static let webSecret = "web-secret-value"
    /// RFC 7636 Appendix B.
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    let harness: RouteHarness
    let nativeID: String

    /// - Parameter nativeID: the native app's client_id (rows about client_id bytes pick their own).
    init(clock: any Model.Clock = SystemClock(), nativeID: String = "app-1") throws {
        harness = try RouteHarness(clock: clock)
        let clients = SQLiteClientStore(store: harness.store)
        try clients.create(Client(clientID: nativeID, name: "Things", type: .native, grantTypes: [.authorizationCode, .refreshToken],
                                  callbacks: [Self.callback], logoutURLs: [Self.logoutURL], createdAt: Date()))
        try clients.create(Client(clientID: "web-1", name: "Web", type: .regular, secretHash: SecretDigest.hash(Self.webSecret),
                                  callbacks: [Self.webCallback], createdAt: Date()))
        try SQLiteUserStore(store: harness.store).create(User(
            userID: "auth0|alice", email: Self.email, passwordHash: try PasswordHash.hash(Self.password), createdAt: Date()))
        self.nativeID = nativeID
    }

    /// Auth0.swift's /authorize parameters; `with` replaces (or adds) names, `dropping` removes them.
    func authorizePairs(_ with: [(String, String)] = [], dropping: Set<String> = []) -> [(String, String)] {
        let base = [("client_id", nativeID), ("response_type", "code"), ("redirect_uri", Self.callback), ("state", "st-1"),
                    ("nonce", "n-1"), ("scope", "openid profile email offline_access"), ("code_challenge", Self.challenge),
                    ("code_challenge_method", "S256")]
        let replaced = Set(with.map(\.0)).union(dropping)
        return base.filter { !replaced.contains($0.0) } + with
    }

    func authorizePath(_ with: [(String, String)] = [], dropping: Set<String> = []) -> String {
        "/authorize?" + Self.query(authorizePairs(with, dropping: dropping))
    }

    static func query(_ pairs: [(String, String)]) -> String {
        pairs.map { RouteHarness.encode($0.0) + "=" + RouteHarness.encode($0.1) }.joined(separator: "&")
    }

    /// Posts the login form of `page`.
    func submit(_ page: RouteHarness.Response, email: String = CatalogueRig.email, password: String = CatalogueRig.password,
                from ip: String = "198.51.100.7") -> RouteHarness.Response {
        let tx = HTMLForm.value(of: "tx", in: page.text) ?? ""
        let csrf = HTMLForm.value(of: "csrf_token", in: page.text) ?? ""
        return harness.post("/login", form: [("tx", tx), ("csrf_token", csrf), ("email", email), ("password", password),
                                             ("action", "login")], from: ip)
    }

    /// /authorize → the form → /authorize/resume; the callback URL, or nil if a hop went elsewhere.
    func signIn(_ path: String? = nil) -> String? {
        let page = harness.get(path ?? authorizePath())
        guard page.status == 200 else { return nil }
        let posted = submit(page)
        guard posted.status == 303, let resume = posted.location else { return nil }
        let back = harness.get(resume)
        return back.status == 302 ? back.location : nil
    }

    static func code(in callback: String?) -> String? { callback.flatMap { queryParameters(of: $0)["code"] } }

    /// The code exchange as Auth0.swift sends it (form encoded).
    func redeem(_ code: String, clientID: String? = nil, verifier: String = CatalogueRig.verifier) -> RouteHarness.Response {
        harness.post("/oauth/token", form: [("grant_type", "authorization_code"), ("client_id", clientID ?? nativeID), ("code", code),
                                           ("code_verifier", verifier), ("redirect_uri", Self.callback)])
    }

    func refresh(_ token: String) -> RouteHarness.Response {
        harness.post("/oauth/token", form: [("grant_type", "refresh_token"), ("client_id", nativeID), ("refresh_token", token)])
    }

    /// Signs in and exchanges the code; the token response's members.
    func tokens(_ path: String? = nil) -> [String: Any] {
        guard let code = Self.code(in: signIn(path)) else { return [:] }
        return Self.json(redeem(code).text) ?? [:]
    }

    func userinfo(_ accessToken: String) -> RouteHarness.Response {
        harness.get("/userinfo", headers: [("Authorization", "Bearer " + accessToken)])
    }

    static func json(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    /// Ordered query items of a callback URL (the custom scheme parses like any other).
    static func items(of url: String) -> [(String, String)] {
        (URLComponents(string: url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
    }

    func count(_ table: String) throws -> Int {
        try harness.store.database.read { try $0.queryOne("SELECT count(*) FROM \(table)")?.int(0) ?? -1 }
    }
}
