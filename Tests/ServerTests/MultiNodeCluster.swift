import Foundation
import Testing
import TestSupport

/// Three real `idp` processes over one PostgreSQL database behind a real nginx (round-robin),
/// one issuer for all: what README "Running several nodes" describes, in a temporary directory.
final class MultiNodeCluster: @unchecked Sendable {
    static let redirectURI = "com.example.app://127.0.0.1/ios/com.example.app/callback"
    static let password = "Correct horse battery staple 7"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"  // RFC 7636 Appendix B
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    let directory: TemporaryDirectory
    let environment: [String: String]
    let ports: [Int]
    let nginx: NginxFrontend
    private(set) var nodes: [Daemon] = []
    var issuer: String { nginx.baseURL }

    init(_ cluster: PostgresCluster, count: Int = 3) throws {
        directory = try TemporaryDirectory("multinode")
        let passwordFile = directory.file("database-password")
        try Data((cluster.password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
        ports = (0..<count).map { _ in Daemon.freePort() }
        nginx = try NginxFrontend(upstreams: ports)
        environment = ["IDP_DATABASE": cluster.url(database: try cluster.makeDatabase()), "IDP_DATABASE_PASSWORD_FILE": passwordFile,
                       "IDP_KEY_ENCRYPTION_KEY_FILE": directory.file("idp.kek"), "IDP_DATABASE_STATEMENT_TIMEOUT": "2s",
                       "IDP_ISSUER": nginx.baseURL, "IDP_TRUSTED_PROXIES": "127.0.0.1", "IDP_MAX_CONNECTIONS_PER_CLIENT": "0"]
        // The first node creates the key-encryption key, the schema and the first keys; the others share them.
        for port in ports { nodes.append(try startNode(port)) }
    }

    deinit {
        for node in nodes { _ = node.stop() }
        nginx.stop()
    }

    func startNode(_ port: Int) throws -> Daemon {
        try Daemon(environment: environment.merging(["IDP_LISTEN": "127.0.0.1:\(port)"]) { $1 }, directory: directory)
    }

    /// A node's own URL (past nginx), for checks that must reach each node.
    func nodeURL(_ index: Int) -> String { "http://127.0.0.1:\(ports[index])/" }

    func kill(_ index: Int) { _ = nodes[index].stop(signal: SIGKILL) }

    func admin(_ arguments: [String], input: String = "") throws -> (status: Int32, stdout: String, stderr: String) {
        try AdminProcess.run(arguments, environment: environment, directory: directory.path, input: input)
    }

    func createApp(extra: [String] = []) throws -> String {
        let result = try admin(["apps", "create", "--name", "Multi-node app", "--type", "native", "--callbacks", Self.redirectURI, "--json"] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return try #require(object["client_id"] as? String)
    }

    func createUser(_ email: String = "alice@example.com") throws -> String {
        let result = try admin(["users", "create", "--email", email, "--password-stdin", "--json"], input: Self.password + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return try #require(object["user_id"] as? String)
    }

    func authorizeURL(_ base: String? = nil, clientID: String, redirectURI: String = MultiNodeCluster.redirectURI,
                      extra: [(String, String)] = []) -> String {
        var components = URLComponents(string: (base ?? issuer) + "authorize")!
        components.queryItems = ([("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI),
                                  ("scope", "openid profile email offline_access"), ("state", "s"), ("code_challenge", Self.challenge),
                                  ("code_challenge_method", "S256")] + extra).map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.url!.absoluteString
    }

    /// The browser sign-in through nginx; the callback URL and the node each step reached.
    func signIn(_ browser: Browser, clientID: String) throws -> (callback: String, nodes: [String]) {
        let page = try browser.get(authorizeURL(clientID: clientID))
        #expect(page.status == 200, "\(page.text)")
        let tx = try #require(HTMLForm.value(of: "tx", in: page.text))
        let csrf = try #require(HTMLForm.value(of: "csrf_token", in: page.text))
        let posted = try browser.post(issuer + "login", form: [("tx", tx), ("csrf_token", csrf), ("email", "alice@example.com"),
                                                               ("password", Self.password), ("action", "login")])
        #expect(posted.status == 303, "\(posted.text)")
        let resumed = try browser.get(try #require(posted.headers["location"]))
        #expect(resumed.status == 302, "\(resumed.text)")
        return (try #require(resumed.headers["location"]), [page, posted, resumed].map { $0.headers["x-upstream"] ?? "?" })
    }

    func redeem(_ code: String, clientID: String, base: String? = nil) throws -> Curl.Response {
        try post(base, "oauth/token", ["grant_type": "authorization_code", "client_id": clientID, "code": code,
                                       "code_verifier": Self.verifier, "redirect_uri": Self.redirectURI])
    }

    func refresh(_ token: String, clientID: String, base: String? = nil) throws -> Curl.Response {
        try post(base, "oauth/token", ["grant_type": "refresh_token", "client_id": clientID, "refresh_token": token])
    }

    func post(_ base: String?, _ path: String, _ body: [String: Any]) throws -> Curl.Response {
        let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        return try Curl.get((base ?? issuer) + path, ["-H", "Content-Type: application/json", "--data-binary", text])
    }

    /// A signed-in browser and its first token response.
    func signedIn(clientID: String) throws -> (browser: Browser, tokens: [String: Any]) {
        let browser = Browser(directory: directory)
        let (callback, _) = try signIn(browser, clientID: clientID)
        let code = try #require(queryParameters(of: callback)["code"])
        let redeemed = try redeem(code, clientID: clientID)
        #expect(redeemed.status == 200, "\(redeemed.text)")
        return (browser, try redeemed.json())
    }

    /// Runs `body` on `count` threads released together; the results in thread order.
    static func atOnce<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        let results = Collected<[(Int, T)]>([])
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for index in 0..<count {
            done.enter()
            let thread = Thread {
                gate.wait()
                let value = body(index)
                results.withLock { $0.append((index, value)) }
                done.leave()
            }
            thread.start()
        }
        for _ in 0..<count { gate.signal() }
        done.wait()
        return results.withLock { $0 }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Polls `condition` until it holds or `limit` passes; how long it took, or nil.
    static func within(_ limit: Duration, _ condition: () throws -> Bool) rethrows -> Duration? {
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start <= limit {
            if try condition() { return clock.now - start }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }
}
