import Crypto
import Foundation
import HTTP
import SQLite
import Storage
import Testing
import TestSupport

/// Catalogue rows of the token endpoint and userinfo, driven through the real routes in-process.
@Suite("Negative catalogue: token and userinfo")
struct NegativeCatalogueTokenTests {
    /// C01: replaying a code kills what the first redemption issued — its access token and its refresh token.
    @Test func aReplayedCodeKillsTheFirstRefreshTokenToo() throws {
        let rig = try CatalogueRig()
        let code = try #require(CatalogueRig.code(in: rig.signIn()))
        let first = try #require(CatalogueRig.json(rig.redeem(code).text))
        let accessToken = try #require(first["access_token"] as? String)
        let refreshToken = try #require(first["refresh_token"] as? String)
        #expect(rig.userinfo(accessToken).status == 200)
        let replay = rig.redeem(code)
        #expect(replay.status == 400 && CatalogueRig.json(replay.text)?["error"] as? String == "invalid_grant")
        #expect(rig.userinfo(accessToken).status == 401)
        let refreshed = rig.refresh(refreshToken)
        #expect(refreshed.status == 400 && CatalogueRig.json(refreshed.text)?["error"] as? String == "invalid_grant")
    }

    /// One malformed or refused token request (C12).
    struct ErrorRow: Sendable, CustomTestStringConvertible {
        let name: String
        let body: String
        var contentType = "application/x-www-form-urlencoded"
        var authorization: String?
        var query = ""
        let status: Int
        let error: String
        var testDescription: String { name }
    }

    static let errorRows: [ErrorRow] = [
        .init(name: "C07 no grant_type", body: "client_id=app-1", status: 400, error: "invalid_request"),
        .init(name: "C07 password from a public app", body: "client_id=app-1&grant_type=password&username=a&password=b",
              status: 400, error: "unauthorized_client"),
        .init(name: "C07 unknown grant", body: "client_id=app-1&grant_type=urn:x", status: 400, error: "unsupported_grant_type"),
        .init(name: "C07 client_credentials from a public app", body: "client_id=app-1&grant_type=client_credentials",
              status: 400, error: "unauthorized_client"),
        .init(name: "C06 garbage code", body: "client_id=app-1&grant_type=authorization_code&code=garbage&code_verifier="
              + CatalogueRig.verifier, status: 400, error: "invalid_grant"),
        .init(name: "garbage refresh token", body: "client_id=app-1&grant_type=refresh_token&refresh_token=x", status: 400, error: "invalid_grant"),
        .init(name: "C08 parameters in the query", body: "", query: "?grant_type=authorization_code&code=x", status: 400, error: "invalid_request"),
        .init(name: "C08 duplicate grant_type", body: "client_id=app-1&grant_type=refresh_token&grant_type=refresh_token",
              status: 400, error: "invalid_request"),
        .init(name: "text/plain body", body: "grant_type=x", contentType: "text/plain", status: 400, error: "invalid_request"),
        .init(name: "JSON array body", body: "[1]", contentType: "application/json", status: 400, error: "invalid_request"),
        .init(name: "C09 wrong secret", body: "grant_type=authorization_code&code=x",
              authorization: "Basic " + Data("web-1:wrong".utf8).base64EncodedString(), status: 401, error: "invalid_client"),
        .init(name: "C09 unknown client", body: "grant_type=authorization_code&code=x",
              authorization: "Basic " + Data("nobody:wrong".utf8).base64EncodedString(), status: 401, error: "invalid_client"),
        .init(name: "C10 Basic and client_secret", body: "grant_type=authorization_code&code=x&client_secret=" + CatalogueRig.webSecret,
              authorization: "Basic " + Data("web-1:\(CatalogueRig.webSecret)".utf8).base64EncodedString(), status: 400, error: "invalid_request"),
        .init(name: "C11 malformed Basic", body: "grant_type=authorization_code&code=x", authorization: "Basic !!!", status: 401,
              error: "invalid_client"),
        .init(name: "L02 public app sending a secret", body: "client_id=app-1&client_secret=s&grant_type=refresh_token&refresh_token=x",
              status: 401, error: "invalid_client"),
    ]

    /// C12: every refusal is JSON with `no-store`, names an RFC 6749 §5.2 code, and leaks no internals.
    @Test(arguments: errorRows)
    func everyRefusalIsPlainOAuthJSON(_ row: ErrorRow) throws {
        let rig = try CatalogueRig()
        var headers = [("Content-Type", row.contentType)]
        if let authorization = row.authorization { headers.append(("Authorization", authorization)) }
        let response = rig.harness.send("POST", "/oauth/token" + row.query, headers: headers, body: Array(row.body.utf8), from: "198.51.100.7")
        #expect(response.status == row.status)
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["Content-Type"] == "application/json")
        let body = try #require(CatalogueRig.json(response.text), "\(response.text)")
        #expect(Set(body.keys).isSubset(of: ["error", "error_description", "error_uri"]) && body["error_description"] is String)
        #expect(body["error"] as? String == row.error)
        #expect(["invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope"]
            .contains(body["error"] as? String ?? ""))
        for leak in ["detail", ".swift", "Error(", "SQLite", "StorageError", "Fatal"] { #expect(!response.text.contains(leak)) }
        if row.status == 401 { #expect(response.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true) }
    }

    /// C14: after a sign-in, a refresh and a logout, no code, token, cookie, CSRF token or transaction
    /// id is in the database file or its WAL — only their digests; of a refresh token (`rt2`) only its
    /// family's row, no digest and no MAC.
    @Test func noIssuedSecretReachesTheDatabaseFiles() throws {
        let rig = try CatalogueRig()
        let page = rig.harness.get(rig.authorizePath())
        let tx = try #require(HTMLForm.value(of: "tx", in: page.text))
        let csrf = try #require(HTMLForm.value(of: "csrf_token", in: page.text))
        let posted = rig.submit(page)
        let session = try #require(rig.harness.cookies["__Host-gatehouse_session"])
        let resume = try #require(posted.location)
        let code = try #require(CatalogueRig.code(in: rig.harness.get(resume).location))
        let first = try #require(CatalogueRig.json(rig.redeem(code).text))
        let refresh0 = try #require(first["refresh_token"] as? String)
        let refresh1 = try #require(CatalogueRig.json(rig.refresh(refresh0).text)?["refresh_token"] as? String)
        let plaintexts = [tx, csrf, session, code, refresh0, refresh1, CatalogueRig.password]
        for round in 0..<2 {
            var bytes = Data()
            for suffix in ["", "-wal"] {
                bytes += (try? Data(contentsOf: URL(fileURLWithPath: rig.harness.store.path + suffix))) ?? Data()
            }
            let grantID = String(refresh1.split(separator: ".")[1])
            #expect(bytes.range(of: Data(grantID.utf8)) != nil, "round \(round): the probe finds the family's grant id")
            #expect(bytes.range(of: Data(Digest.sha256Hex(Array(refresh1.utf8)).utf8)) == nil, "round \(round): a refresh digest stored")
            #expect(bytes.range(of: Data(refresh1.split(separator: ".")[3].utf8)) == nil, "round \(round): a MAC stored")
            for secret in plaintexts { #expect(bytes.range(of: Data(secret.utf8)) == nil, "round \(round): \(secret.prefix(8))… stored") }
            _ = try rig.harness.store.checkpoint()
        }
    }

    /// E07: what /userinfo refuses (401 with a Bearer challenge) and the token placements it accepts.
    @Test func userinfoRefusesEverythingButAValidBearer() throws {
        let clock = MutableClock(Date())
        let rig = try CatalogueRig(clock: clock)
        let tokens = rig.tokens()
        let access = try #require(tokens["access_token"] as? String)
        let idToken = try #require(tokens["id_token"] as? String)
        func userinfo(_ headers: [(String, String)], query: String = "") -> RouteHarness.Response {
            rig.harness.get("/userinfo" + query, headers: headers)
        }
        let refusals: [(String, RouteHarness.Response, Bool)] = [
            ("no token", userinfo([]), false),
            ("garbage", userinfo([("Authorization", "Bearer garbage")]), true),
            ("ID token as bearer", userinfo([("Authorization", "Bearer " + idToken)]), true),
            ("bad signature", userinfo([("Authorization", "Bearer " + access.dropLast(3) + "AAA")]), true),
            ("token in the query", userinfo([], query: "?access_token=" + access), false),
            ("Basic scheme", userinfo([("Authorization", "Basic " + access)]), false),
        ]
        for (name, response, presented) in refusals {
            #expect(response.status == 401, "\(name)")
            let challenge = response.headers["WWW-Authenticate"] ?? ""
            #expect(challenge.hasPrefix("Bearer"), "\(name)")
            #expect(challenge.contains(#"error="invalid_token""#) == presented, "\(name): \(challenge)")
            #expect(response.headers["Cache-Control"] == "no-store", "\(name)")
        }
        for scheme in ["bearer", "BEARER"] { #expect(userinfo([("Authorization", "\(scheme) \(access)")]).status == 200) }
        #expect(rig.harness.post("/userinfo", form: [("access_token", access)]).status == 200)   // RFC 6750 §2.2
        clock.advance(by: 86_401)
        let expired = userinfo([("Authorization", "Bearer " + access)])
        #expect(expired.status == 401 && expired.headers["WWW-Authenticate"]?.contains("invalid_token") == true)
    }

    @Test func aRevokedAccessTokenIs401() throws {
        let rig = try CatalogueRig()
        let access = try #require(rig.tokens()["access_token"] as? String)
        #expect(rig.harness.post("/oauth/revoke", form: [("token", access), ("client_id", "app-1")]).status == 200)
        let response = rig.userinfo(access)
        #expect(response.status == 401 && response.headers["WWW-Authenticate"]?.contains(#"error="invalid_token""#) == true)
    }

    /// E09: the discovery members a client needs, every URL under the issuer, no `none`.
    @Test func discoveryAdvertisesTheAuthMethodsAndOnlyIssuerURLs() throws {
        let rig = try CatalogueRig()
        let metadata = try #require(CatalogueRig.json(rig.harness.get("/.well-known/openid-configuration").text))
        #expect(metadata["issuer"] as? String == rig.harness.issuer)
        #expect(Set(metadata["token_endpoint_auth_methods_supported"] as? [String] ?? [])
            .isSuperset(of: ["client_secret_basic", "client_secret_post", "none"]))
        for (key, value) in metadata {
            if let text = value as? String, text.contains("://") { #expect(text.hasPrefix(rig.harness.issuer), "\(key)") }
            if key.contains("alg_values") { #expect((value as? [String])?.contains("none") == false, "\(key)") }
        }
    }

    /// K03, the code half: a fault after the code was consumed and before the grant was stored issues
    /// nothing; the code stays burnt (single use, RFC 6749 §4.1.2), so a retry is invalid_grant.
    @Test func aFaultBetweenConsumingTheCodeAndStoringTheGrantIssuesNothing() throws {
        let rig = try CatalogueRig()
        let code = try #require(CatalogueRig.code(in: rig.signIn()))
        try rig.harness.store.database.write { connection in
            _ = try connection.run("CREATE TEMP TRIGGER k03_fault BEFORE INSERT ON main.grants BEGIN SELECT RAISE(ABORT, 'k03 injected'); END")
        }
        let failed = rig.redeem(code)
        #expect(failed.status >= 500, "\(failed.text)")
        #expect(failed.headers["Content-Type"] == "application/json" && failed.headers["Cache-Control"] == "no-store")
        #expect(!failed.text.contains("access_token") && !failed.text.contains("k03") && !failed.text.contains("SQLite"))
        #expect(try rig.count("grants") == 0 && rig.count("refresh_tokens") == 0)
        try rig.harness.store.database.write { connection in _ = try connection.run("DROP TRIGGER temp.k03_fault") }
        let retry = rig.redeem(code)
        #expect(retry.status == 400 && CatalogueRig.json(retry.text)?["error"] as? String == "invalid_grant")
        #expect(try rig.count("grants") == 0)
    }

    /// K05: a write lock held elsewhere past busy_timeout (5 s) answers 503 temporarily_unavailable with
    /// Retry-After, not a stack trace; nothing was consumed, so the same code works once the lock is gone.
    @Test func aWriteLockHeldPastTheBusyTimeoutIs503AndHarmless() throws {
        let rig = try CatalogueRig()
        let code = try #require(CatalogueRig.code(in: rig.signIn()))
        let holder = try Connection(path: rig.harness.store.path)
        try holder.execute("BEGIN IMMEDIATE")
        let busy = rig.redeem(code)
        try holder.execute("ROLLBACK")
        holder.close()
        #expect(busy.status == 503, "\(busy.text)")
        #expect(busy.headers["Retry-After"] != nil && busy.headers["Cache-Control"] == "no-store")
        #expect(CatalogueRig.json(busy.text)?["error"] as? String == "temporarily_unavailable")
        #expect(!busy.text.contains("SQLite") && !busy.text.contains("busy"))
        #expect(rig.redeem(code).status == 200)
    }
}
