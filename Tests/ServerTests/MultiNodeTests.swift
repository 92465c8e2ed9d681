import Foundation
import Testing
import TestSupport

/// Several nodes over one PostgreSQL behind a real nginx (README "Running several nodes"):
/// any node answers any step of a flow, the one-time guarantees hold across processes, a
/// change made through one node is seen by the others in time, and a node or the database
/// failing under load loses nothing that was answered 200. Real processes throughout.
@Suite(.serialized, .enabled(if: !PostgresCluster.isSkipped, "IDP_TEST_SKIP_POSTGRES=1"))
struct MultiNodeTests {
    @Test func aSignInRefreshesAndLogoutSpreadOverTheNodes() throws {
        let nodes = try MultiNodeCluster(try PostgresCluster.shared())
        let clientID = try nodes.createApp()
        _ = try nodes.createUser()
        let browser = Browser(directory: nodes.directory)
        let (callback, steps) = try nodes.signIn(browser, clientID: clientID)
        // Round-robin: authorize, login and resume each reached another node than the step before.
        #expect(steps[0] != steps[1] && steps[1] != steps[2], "\(steps)")
        let code = try #require(queryParameters(of: callback)["code"])
        let redeemed = try nodes.redeem(code, clientID: clientID)
        #expect(redeemed.status == 200, "\(redeemed.text)")
        #expect(redeemed.headers["x-upstream"] != steps[2], "\(steps) then \(redeemed.headers["x-upstream"] ?? "?")")
        var token = try #require(try redeemed.json()["refresh_token"] as? String)
        var seen = Set(steps + [redeemed.headers["x-upstream"] ?? "?"])
        for _ in 0..<3 {
            let rotated = try nodes.refresh(token, clientID: clientID)
            #expect(rotated.status == 200, "\(rotated.text)")
            let next = try #require(try rotated.json()["refresh_token"] as? String)
            #expect(next != token)
            token = next
            seen.insert(rotated.headers["x-upstream"] ?? "?")
        }
        #expect(seen.count == 3, "\(seen)")
        let loggedOut = try browser.get(nodes.issuer + "v2/logout")
        #expect(loggedOut.status == 200 || loggedOut.status == 302)
        for index in 0..<3 {
            let silent = try browser.get(nodes.authorizeURL(nodes.nodeURL(index), clientID: clientID, extra: [("prompt", "none")]))
            let location = try #require(silent.headers["location"])
            #expect(queryParameters(of: location)["error"] == "login_required", "node \(index): \(location)")
        }
    }

    /// 50 requests for one refresh token at once, spread over the three nodes.
    @Test func aRefreshTokenPresentedFiftyTimesAtOnceRotatesOnce() throws {
        let nodes = try MultiNodeCluster(try PostgresCluster.shared())
        let clientID = try nodes.createApp()
        _ = try nodes.createUser()
        let (_, tokens) = try nodes.signedIn(clientID: clientID)
        let token = try #require(tokens["refresh_token"] as? String)
        let issuer = nodes.issuer
        let answers = MultiNodeCluster.atOnce(50) { _ in
            (try? Self.refresh(issuer, token, clientID)) ?? RefreshAnswer(status: 0, token: nil, node: nil)
        }
        // With the overlap window on (10 s, the default), every request gets the same successor.
        #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.map(\.status))")
        #expect(Set(answers.compactMap(\.token)).count == 1)
        #expect(Set(answers.compactMap(\.node)).count == 3, "\(Set(answers.compactMap(\.node)))")

        // Without it, exactly one wins.
        let strict = try nodes.createApp(extra: ["--refresh-reuse-interval", "0"])
        let (_, strictTokens) = try nodes.signedIn(clientID: strict)
        let strictToken = try #require(strictTokens["refresh_token"] as? String)
        let strictAnswers = MultiNodeCluster.atOnce(50) { _ in
            (try? Self.refresh(issuer, strictToken, strict)) ?? RefreshAnswer(status: 0, token: nil, node: nil)
        }
        #expect(strictAnswers.filter { $0.status == 200 }.count == 1, "\(strictAnswers.map(\.status))")
        #expect(strictAnswers.filter { $0.status != 200 }.allSatisfy { $0.status == 400 || $0.status == 403 }, "\(strictAnswers.map(\.status))")
    }

    /// The brute-force counters live in the database: failures on different nodes add up to one
    /// count and one lock, which a node that saw no failure enforces (negative-tests G02–G05).
    @Test func failuresOnSeveralNodesAddUpToOneLock() throws {
        let nodes = try MultiNodeCluster(try PostgresCluster.shared())
        let clientID = try nodes.createApp(extra: ["--grants", "authorization_code,password,refresh_token"])
        _ = try nodes.createUser("mallory-target@example.com")
        func attempt(_ password: String, node: Int) throws -> Curl.Response {
            try nodes.post(nodes.nodeURL(node), "oauth/token", ["grant_type": "password", "client_id": clientID, "scope": "openid",
                                                                "username": "mallory-target@example.com", "password": password])
        }
        // Two quick failures, one on node 0 and one on node 1, lock the pair for a minute.
        #expect(try attempt("wrong 0", node: 0).status == 400)
        #expect(try attempt("wrong 1", node: 1).status == 400)
        let shown = try nodes.admin(["users", "show", "mallory-target@example.com", "--json"])
        let user = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any], "\(shown.stderr)")
        let locks = try #require(user["sign_in_locks"] as? [[String: Any]], "\(user)")
        #expect(locks.contains { $0["scope"] as? String == "email+address" && $0["failures"] as? Int == 2 && $0["locked_until"] != nil },
                "\(locks)")
        // Node 2 saw neither failure, and every node refuses even the right password.
        for node in [2, 0, 1] {
            let right = try attempt(MultiNodeCluster.password, node: node)
            #expect(right.status == 429, "node \(node): \(right.text)")
            #expect(try right.json()["error"] as? String == "too_many_attempts")
        }
    }

    @Test func aCodeIsRedeemedOnceAcrossNodes() throws {
        let nodes = try MultiNodeCluster(try PostgresCluster.shared())
        let clientID = try nodes.createApp()
        _ = try nodes.createUser()
        let (callback, _) = try nodes.signIn(Browser(directory: nodes.directory), clientID: clientID)
        let code = try #require(queryParameters(of: callback)["code"])
        let answers = MultiNodeCluster.atOnce(12) { index in
            (try? nodes.redeem(code, clientID: clientID, base: nodes.nodeURL(index % 3)).status) ?? 0
        }
        #expect(answers.filter { $0 == 200 }.count == 1, "\(answers)")
        #expect(answers.filter { $0 != 200 }.allSatisfy { $0 == 400 || $0 == 403 }, "\(answers)")
    }

    /// An app change, a revocation, a logout, a key rotation and a block, each made through one
    /// node or idp-admin, then seen by every node in time.
    @Test func changesThroughOneNodeReachEveryNode() throws {
        let nodes = try MultiNodeCluster(try PostgresCluster.shared())
        let clientID = try nodes.createApp()
        _ = try nodes.createUser()
        for index in 0..<3 { _ = try Curl.get(nodes.authorizeURL(nodes.nodeURL(index), clientID: clientID)) }  // warm every client cache

        // An application changed through idp-admin: every node takes the new callback at once.
        let added = "com.example.app://127.0.0.1/ios/com.example.app/second"
        let updated = try nodes.admin(["apps", "update", clientID, "--callbacks", "\(MultiNodeCluster.redirectURI),\(added)"])
        #expect(updated.status == 0, "\(updated.stderr)")
        for index in 0..<3 {
            let page = try Curl.get(nodes.authorizeURL(nodes.nodeURL(index), clientID: clientID, redirectURI: added))
            #expect(page.status == 200, "node \(index): \(page.status)")
        }

        let (browser, first) = try nodes.signedIn(clientID: clientID)
        let silent = try browser.get(nodes.authorizeURL(clientID: clientID, extra: [("prompt", "none")]))
        let silentLocation = try #require(silent.headers["location"])
        let secondCode = try #require(queryParameters(of: silentLocation)["code"])
        let second = try nodes.redeem(secondCode, clientID: clientID).json()
        let accessToken = try #require(first["access_token"] as? String)
        let firstRefresh = try #require(first["refresh_token"] as? String)
        let secondRefresh = try #require(second["refresh_token"] as? String)
        for index in 0..<3 {
            #expect(try Curl.get(nodes.nodeURL(index) + "userinfo", ["-H", "Authorization: Bearer \(accessToken)"]).status == 200)
        }

        // A grant revoked through node 0: its access token is refused by the others within 1 s.
        let revoked = try nodes.post(nodes.nodeURL(0), "oauth/revoke", ["token": firstRefresh, "client_id": clientID])
        #expect(revoked.status == 200)
        for index in 1..<3 {
            let took = try MultiNodeCluster.within(.seconds(1)) {
                try Curl.get(nodes.nodeURL(index) + "userinfo", ["-H", "Authorization: Bearer \(accessToken)"]).status == 401
            }
            #expect(took != nil, "node \(index) still accepts the revoked grant's access token")
        }

        // The session ended through node 0: no node signs in silently within 1 s.
        _ = try browser.get(nodes.nodeURL(0) + "v2/logout")
        for index in 1..<3 {
            let took = try MultiNodeCluster.within(.seconds(1)) {
                let answer = try browser.get(nodes.authorizeURL(nodes.nodeURL(index), clientID: clientID, extra: [("prompt", "none")]))
                return queryParameters(of: answer.headers["location"] ?? "")["error"] == "login_required"
            }
            #expect(took != nil, "node \(index) still has the ended session")
        }

        // A key rotation shows in every node's JWKS within 5 s.
        let rotated = try nodes.admin(["keys", "rotate", "--alg", "ES256", "--json"])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let kid = try #require((try JSONSerialization.jsonObject(with: Data(rotated.stdout.utf8)) as? [String: Any])?["kid"] as? String)
        for index in 0..<3 {
            let took = try MultiNodeCluster.within(.seconds(5)) {
                try Curl.get(nodes.nodeURL(index) + ".well-known/jwks.json").text.contains(kid)
            }
            #expect(took != nil, "node \(index) does not publish \(kid)")
        }

        // A user blocked through idp-admin: no node refreshes for them a second later.
        let blocked = try nodes.admin(["users", "block", "alice@example.com"])
        #expect(blocked.status == 0, "\(blocked.stderr)")
        Thread.sleep(forTimeInterval: 1)
        for index in 0..<3 {
            let refused = try nodes.refresh(secondRefresh, clientID: clientID, base: nodes.nodeURL(index))
            #expect(refused.status == 400 || refused.status == 403, "node \(index): \(refused.status) \(refused.text)")
        }
    }

    /// kill -9 of one node while refreshes and reads run through nginx.
    @Test func killingANodeUnderLoadLosesNoTokenAnswered200() throws {
        let nodes = try MultiNodeCluster(try PostgresCluster.shared())
        let clientID = try nodes.createApp()
        _ = try nodes.createUser()
        let starts = try (0..<4).map { _ in try #require(try nodes.signedIn(clientID: clientID).tokens["refresh_token"] as? String) }
        let accessToken = try #require(try nodes.signedIn(clientID: clientID).tokens["access_token"] as? String)
        let issuer = nodes.issuer
        let stop = Collected(false)
        let reads = Collected<[Int]>([])
        let reader = Thread {
            while !stop.withLock({ $0 }) {
                let jwks = (try? Curl.get(issuer + ".well-known/jwks.json").status) ?? 0
                let userinfo = (try? Curl.get(issuer + "userinfo", ["-H", "Authorization: Bearer \(accessToken)"]).status) ?? 0
                reads.withLock { $0 += [jwks, userinfo] }
            }
        }
        reader.start()
        let killer = Thread {
            Thread.sleep(forTimeInterval: 1.5)
            nodes.kill(1)
        }
        killer.start()
        let chains = MultiNodeCluster.atOnce(4) { index -> (last: String, statuses: [Int]) in
            var token = starts[index]
            var statuses: [Int] = []
            let deadline = Date().addingTimeInterval(4)
            while Date() < deadline {
                guard let answer = try? Self.refresh(issuer, token, clientID) else { statuses.append(0); continue }
                statuses.append(answer.status)
                // A request cut by the kill is retried with the same token (the overlap window covers it).
                if answer.status == 200, let next = answer.token { token = next }
            }
            return (token, statuses)
        }
        stop.withLock { $0 = true }
        while reader.isExecuting { Thread.sleep(forTimeInterval: 0.05) }
        // Reads are idempotent: nginx retried those the dead node could not answer.
        #expect(reads.withLock { $0 }.allSatisfy { $0 == 200 }, "\(reads.withLock { $0 }.filter { $0 != 200 })")
        for chain in chains {
            #expect(chain.statuses.filter { $0 == 200 }.count > 5)
            // At most the POSTs in flight at the kill fail, and only as nginx's 502: never a 500.
            #expect(chain.statuses.allSatisfy { $0 == 200 || $0 == 502 }, "\(chain.statuses.filter { $0 != 200 })")
            let after = try Self.refresh(issuer, chain.last, clientID)
            #expect(after.status == 200, "the last token answered 200 must still refresh: \(after.status)")
        }
    }

    /// PostgreSQL stopped and started again under load: 503 with Retry-After in between, never a
    /// 500; each node says not ready meanwhile and recovers by itself.
    @Test func restartingPostgreSQLUnderLoadEndsInRecovery() throws {
        let cluster = try PostgresCluster.dedicated()
        defer { cluster.stop() }
        let nodes = try MultiNodeCluster(cluster)
        let clientID = try nodes.createApp()
        _ = try nodes.createUser()
        let starts = try (0..<3).map { _ in try #require(try nodes.signedIn(clientID: clientID).tokens["refresh_token"] as? String) }
        let issuer = nodes.issuer
        let restarter = Thread {
            Thread.sleep(forTimeInterval: 1)
            try? cluster.stopServer()
            Thread.sleep(forTimeInterval: 2)
            try? cluster.startServer()
        }
        let readiness = Collected<[Int]>([])
        let prober = Thread {
            Thread.sleep(forTimeInterval: 1.8)  // while the server is down
            for index in 0..<3 { readiness.withLock { $0.append((try? Curl.get(nodes.nodeURL(index) + "readyz").status) ?? 0) } }
        }
        restarter.start()
        prober.start()
        let chains = MultiNodeCluster.atOnce(3) { index -> (last: String, answers: [(Int, String?, Bool)]) in
            var token = starts[index]
            var answers: [(Int, String?, Bool)] = []
            let deadline = Date().addingTimeInterval(6)
            while Date() < deadline {
                guard let answer = try? Curl.get(issuer + "oauth/token", ["-H", "Content-Type: application/json", "--data-binary",
                    "{\"grant_type\":\"refresh_token\",\"client_id\":\"\(clientID)\",\"refresh_token\":\"\(token)\"}"]) else { continue }
                let object = try? answer.json()
                answers.append((answer.status, object?["error"] as? String, answer.headers["retry-after"] != nil))
                if answer.status == 200, let next = object?["refresh_token"] as? String { token = next } else { Thread.sleep(forTimeInterval: 0.1) }
            }
            return (token, answers)
        }
        while restarter.isExecuting || prober.isExecuting { Thread.sleep(forTimeInterval: 0.05) }
        #expect(readiness.withLock { $0 } == [503, 503, 503])
        var unavailable = 0
        for chain in chains {
            for (status, error, retryAfter) in chain.answers where status != 200 {
                #expect(status == 503 && error == "temporarily_unavailable" && retryAfter, "\(status) \(error ?? "-")")
                unavailable += 1
            }
        }
        #expect(unavailable > 0, "the outage should have been seen")
        for index in 0..<3 {
            let took = try MultiNodeCluster.within(.seconds(10)) { try Curl.get(nodes.nodeURL(index) + "readyz").status == 200 }
            #expect(took != nil, "node \(index) did not recover")
        }
        for chain in chains {
            let after = try Self.refresh(issuer, chain.last, clientID)
            #expect(after.status == 200, "\(after.status) \(after.token ?? "")")
        }
    }

    /// A refresh through `base`: status, successor and the node that answered.
    struct RefreshAnswer: Sendable {
        let status: Int
        let token: String?
        let node: String?
    }

    static func refresh(_ base: String, _ token: String, _ clientID: String) throws -> RefreshAnswer {
        let body = "{\"grant_type\":\"refresh_token\",\"client_id\":\"\(clientID)\",\"refresh_token\":\"\(token)\"}"
        let answer = try Curl.get(base + "oauth/token", ["-H", "Content-Type: application/json", "--data-binary", body])
        return RefreshAnswer(status: answer.status, token: (try? answer.json())?["refresh_token"] as? String, node: answer.headers["x-upstream"])
    }
}
