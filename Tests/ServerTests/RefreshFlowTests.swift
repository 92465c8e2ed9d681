import Foundation
import Model
import Storage
import Testing
import TestSupport

/// Refresh tokens and per-device sessions against the real daemon, with Auth0.swift's JSON bodies.
@Suite struct RefreshFlowTests {
    static let scope = "openid profile email offline_access"
    static let deadBody = #"{"error":"invalid_grant","error_description":"Unknown or invalid refresh token."}"#

    /// Signs in with `offline_access` in `browser` and exchanges the code; returns the token response body.
    private func signIn(_ fixture: SignInFixture, _ browser: Browser, clientID: String) throws -> [String: Any] {
        let callback = try fixture.signIn(browser, clientID: clientID, extra: [("scope", Self.scope)])
        let code = try #require(queryParameters(of: callback)["code"])
        let token = try fixture.redeem(code: code, clientID: clientID)
        #expect(token.status == 200, "\(token.text)")
        return try token.json()
    }

    /// Auth0.swift's refresh: `{"grant_type":"refresh_token","client_id":…,"refresh_token":…}`.
    private func refresh(_ fixture: SignInFixture, clientID: String, token: String) throws -> Curl.Response {
        try Browser(directory: fixture.daemon.directory).post(fixture.issuer + "oauth/token", json: [
            "grant_type": "refresh_token", "client_id": clientID, "refresh_token": token,
        ])
    }

    private func userinfoStatus(_ fixture: SignInFixture, _ accessToken: String) throws -> Int {
        try Curl.get(fixture.issuer + "userinfo", ["-H", "Authorization: Bearer \(accessToken)"]).status
    }

    /// Sets an application's overlap window directly in the daemon's database (`apps` has no flag for it yet).
    private func setReuseInterval(_ fixture: SignInFixture, clientID: String, seconds: Int) throws {
        let store = try Store(path: fixture.daemon.directory.file("data/idp.sqlite3"))
        defer { store.close() }
        let clients = SQLiteClientStore(store: store)
        var client = try #require(try clients.find(clientID: clientID))
        client.refreshReuseInterval = seconds
        try clients.update(client)
    }

    @Test func refreshRotatesWithAuth0SwiftsJSONBody() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        let userID = try fixture.createUser()
        let first = try signIn(fixture, Browser(directory: fixture.daemon.directory), clientID: app.clientID)
        #expect(first["scope"] as? String == Self.scope)
        let r0 = try #require(first["refresh_token"] as? String)
        #expect(r0.count >= 43)
        let originalID = try SignInFixture.claims(of: try #require(first["id_token"] as? String))

        let refreshed = try refresh(fixture, clientID: app.clientID, token: r0)
        #expect(refreshed.status == 200, "\(refreshed.text)")
        #expect(refreshed.headers["cache-control"] == "no-store")
        let body = try refreshed.json()
        let r1 = try #require(body["refresh_token"] as? String)
        #expect(r1 != r0)
        #expect(body["token_type"] as? String == "Bearer" && body["expires_in"] is Int && body["scope"] as? String == Self.scope)
        let accessToken = try #require(body["access_token"] as? String)
        #expect(accessToken != first["access_token"] as? String)
        let idToken = try SignInFixture.claims(of: try #require(body["id_token"] as? String))
        #expect(idToken["sub"] as? String == userID && idToken["aud"] as? String == app.clientID)
        #expect(idToken["iss"] as? String == fixture.issuer && idToken["nonce"] == nil)
        #expect(idToken["auth_time"] as? Int == originalID["auth_time"] as? Int)
        #expect(try userinfoStatus(fixture, accessToken) == 200)

        // A retry inside the default 10 s window gets the same successor, not a new branch.
        let retry = try refresh(fixture, clientID: app.clientID, token: r0)
        #expect(retry.status == 200, "\(retry.text)")
        #expect(try retry.json()["refresh_token"] as? String == r1)
        // The successor rotates on.
        let next = try refresh(fixture, clientID: app.clientID, token: r1)
        #expect(next.status == 200)
        #expect(try next.json()["refresh_token"] as? String != r1)

        // Form encoding works too, and a sign-in without offline_access gets no refresh token.
        let plainCode = try #require(queryParameters(of: try fixture.signIn(Browser(directory: fixture.daemon.directory),
                                                                              clientID: app.clientID))["code"])
        let plain = try fixture.redeem(code: plainCode, clientID: app.clientID)
        #expect(try plain.json()["refresh_token"] == nil)
    }

    /// D01 end to end: reuse after the window answers the exact Auth0 body and kills the newest access token.
    @Test func reuseAfterTheWindowRevokesTheFamily() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        try setReuseInterval(fixture, clientID: app.clientID, seconds: 1)
        let r0 = try #require(try signIn(fixture, Browser(directory: fixture.daemon.directory), clientID: app.clientID)["refresh_token"] as? String)
        let rotated = try refresh(fixture, clientID: app.clientID, token: r0)
        #expect(rotated.status == 200)
        let body = try rotated.json()
        let r1 = try #require(body["refresh_token"] as? String)
        let newest = try #require(body["access_token"] as? String)
        #expect(try userinfoStatus(fixture, newest) == 200)

        Thread.sleep(forTimeInterval: 2.2)
        let reuse = try refresh(fixture, clientID: app.clientID, token: r0)
        #expect(reuse.status == 400)
        #expect(reuse.text == Self.deadBody)
        #expect(reuse.headers["cache-control"] == "no-store")
        #expect(try userinfoStatus(fixture, newest) == 401)
        let successor = try refresh(fixture, clientID: app.clientID, token: r1)
        #expect(successor.status == 400 && successor.text == Self.deadBody)
        let unknown = try refresh(fixture, clientID: app.clientID, token: "not-a-token")
        #expect(unknown.status == 400 && unknown.text == Self.deadBody)
    }

    /// Every refusal of a live token leaves it unused (RFC 6749 §6: a refused request changes
    /// nothing): the token then still rotates, and its successor too.
    @Test(arguments: [
        ("a scope beyond the grant's", "scope", "openid admin", 400, "invalid_scope"),
        ("an audience the grant does not have", "audience", "https://api.example.com", 400, "invalid_request"),
        ("another application", "client_id", "other", 400, "invalid_grant"),
        ("a token whose secret part was changed", "refresh_token", "tampered", 400, "invalid_grant"),
    ])
    func aRefusedRefreshLeavesTheTokenUnused(_ label: String, field: String, value: String, status: Int, error: String) throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        let other = try fixture.createApp()
        try fixture.createUser()
        let signedIn = try signIn(fixture, Browser(directory: fixture.daemon.directory), clientID: app.clientID)
        let token = try #require(signedIn["refresh_token"] as? String)
        var body: [String: Any] = ["grant_type": "refresh_token", "client_id": app.clientID, "refresh_token": token]
        switch (field, value) {
        case ("client_id", "other"): body["client_id"] = other.clientID
        case ("refresh_token", "tampered"):
            // A character inside the MAC (the last one may carry only padding bits).
            var characters = Array(token)
            let index = characters.count - 5
            characters[index] = characters[index] == "A" ? "B" : "A"
            body["refresh_token"] = String(characters)
        default: body[field] = value
        }
        let refused = try Browser(directory: fixture.daemon.directory).post(fixture.issuer + "oauth/token", json: body)
        #expect(refused.status == status, "\(label): \(refused.text)")
        #expect(try refused.json()["error"] as? String == error, "\(label)")

        let first = try refresh(fixture, clientID: app.clientID, token: token)
        #expect(first.status == 200, "\(label): \(first.text)")
        let successor = try #require(try first.json()["refresh_token"] as? String)
        #expect(try refresh(fixture, clientID: app.clientID, token: successor).status == 200)
    }

    /// A family with an API audience rotates like any other: a JWT for the API each time (its
    /// scope phase reads the API), a retry gets the same successor, and the successor rotates on.
    @Test func aFamilyWithAnAPIAudienceRotates() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        let api = "https://api.example.com/"
        let created = try fixture.daemon.admin(["apis", "create", "--identifier", api, "--name", "Orders", "--scopes", "read:orders"])
        #expect(created.status == 0, "\(created.stderr)")
        let callback = try fixture.signIn(Browser(directory: fixture.daemon.directory), clientID: app.clientID,
                                          extra: [("scope", Self.scope + " read:orders"), ("audience", api)])
        let code = try #require(queryParameters(of: callback)["code"])
        let first = try fixture.redeem(code: code, clientID: app.clientID)
        #expect(first.status == 200, "\(first.text)")
        let r0 = try #require(try first.json()["refresh_token"] as? String)

        let rotated = try refresh(fixture, clientID: app.clientID, token: r0)
        #expect(rotated.status == 200, "\(rotated.text)")
        let body = try rotated.json()
        let r1 = try #require(body["refresh_token"] as? String)
        // As Auth0: the API and, for an `openid` grant, /userinfo.
        let audience = try SignInFixture.claims(of: try #require(body["access_token"] as? String))["aud"] as? [String]
        #expect(audience?.first == api, "\(String(describing: audience))")
        #expect(try refresh(fixture, clientID: app.clientID, token: r0).json()["refresh_token"] as? String == r1)
        let next = try refresh(fixture, clientID: app.clientID, token: r1)
        #expect(next.status == 200, "\(next.text)")
        let r2 = try next.json()["refresh_token"] as? String
        #expect(r2 != nil && r2 != r1)
    }

    /// Two devices, two sessions and families; `sessions revoke` signs out only one of them.
    @Test func twoDevicesAreTwoSessionsRevokedOneAtATime() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        let userID = try fixture.createUser()
        let phone = try signIn(fixture, Browser(directory: fixture.daemon.directory), clientID: app.clientID)
        let laptop = try signIn(fixture, Browser(directory: fixture.daemon.directory), clientID: app.clientID)
        let phoneIDToken = try #require(phone["id_token"] as? String)
        let phoneSID = try #require(try SignInFixture.claims(of: phoneIDToken)["sid"] as? String)
        let laptopIDToken = try #require(laptop["id_token"] as? String)
        let laptopSID = try #require(try SignInFixture.claims(of: laptopIDToken)["sid"] as? String)
        #expect(phoneSID != laptopSID)

        let listed = try fixture.daemon.admin(["sessions", "list", "--user", userID, "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let sessions = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(Set(sessions.compactMap { $0["session_id"] as? String }) == [phoneSID, laptopSID])
        #expect(sessions.allSatisfy { $0["state"] as? String == "live" && $0["live_refresh_tokens"] as? Int == 1 })
        #expect(sessions.allSatisfy { $0["ip"] as? String == "127.0.0.1" && $0["created_at"] is String && $0["last_seen_at"] is String })
        let text = try fixture.daemon.admin(["sessions", "list", "--user", userID])
        #expect(text.stdout.contains("SESSION_ID") && text.stdout.contains(phoneSID))

        let revoked = try fixture.daemon.admin(["sessions", "revoke", phoneSID, "--json"])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let phoneRefresh = try refresh(fixture, clientID: app.clientID, token: try #require(phone["refresh_token"] as? String))
        #expect(phoneRefresh.status == 400 && phoneRefresh.text == Self.deadBody)
        #expect(try userinfoStatus(fixture, try #require(phone["access_token"] as? String)) == 401)
        let laptopRefresh = try refresh(fixture, clientID: app.clientID, token: try #require(laptop["refresh_token"] as? String))
        #expect(laptopRefresh.status == 200, "\(laptopRefresh.text)")
        #expect(try userinfoStatus(fixture, try #require(laptop["access_token"] as? String)) == 200)

        let after = try fixture.daemon.admin(["sessions", "list", "--user", userID, "--json"])
        let states = try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [[String: Any]])
        let phoneRow = try #require(states.first { $0["session_id"] as? String == phoneSID })
        let laptopRow = try #require(states.first { $0["session_id"] as? String == laptopSID })
        #expect(phoneRow["state"] as? String == "ended" && phoneRow["live_refresh_tokens"] as? Int == 0)
        #expect(laptopRow["state"] as? String == "live" && laptopRow["live_refresh_tokens"] as? Int == 1)

        // tokens revoke --user --app kills the remaining device's tokens.
        let tokens = try fixture.daemon.admin(["tokens", "revoke", "--user", userID, "--app", app.clientID, "--json"])
        #expect(tokens.status == 0, "\(tokens.stderr)")
        let laptopNext = try #require(try laptopRefresh.json()["refresh_token"] as? String)
        #expect(try refresh(fixture, clientID: app.clientID, token: laptopNext).text == Self.deadBody)
    }

    /// D02 through HTTP: 50 simultaneous refreshes of one token. Window on: all get the same successor.
    /// Window off: exactly one 200; the other 49 are reuse (invalid_grant), which revokes the family,
    /// the winner's successor included.
    @Test(arguments: [true, false])
    func fiftySimultaneousRefreshes(window: Bool) throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        if !window { try setReuseInterval(fixture, clientID: app.clientID, seconds: 0) }
        let r0 = try #require(try signIn(fixture, Browser(directory: fixture.daemon.directory), clientID: app.clientID)["refresh_token"] as? String)
        let collected = Responses()
        let group = DispatchGroup()
        for _ in 0..<50 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                let response = try? refresh(fixture, clientID: app.clientID, token: r0)
                let token = (try? response?.json())?["refresh_token"] as? String
                collected.append((response?.status ?? -1, response?.text ?? "", token))
            }
        }
        group.wait()
        let responses = collected.all
        #expect(responses.count == 50)
        let successes = responses.filter { $0.status == 200 }
        if window {
            #expect(successes.count == 50, "\(responses.filter { $0.status != 200 }.map(\.body))")
            #expect(Set(successes.compactMap(\.token)).count == 1)
        } else {
            #expect(successes.count == 1)
            #expect(responses.filter { $0.status == 400 && $0.body == Self.deadBody }.count == 49)
            let winner = try #require(successes.first?.token)
            #expect(try refresh(fixture, clientID: app.clientID, token: winner).text == Self.deadBody)
        }
    }

    @Test func discoveryListsTheRefreshGrant() throws {
        let fixture = try SignInFixture()
        let discovery = try Curl.get(fixture.issuer + ".well-known/openid-configuration").json()
        #expect((discovery["grant_types_supported"] as? [String])?.contains("refresh_token") == true)
    }
}

/// Responses gathered from many threads.
private final class Responses: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(status: Int, body: String, token: String?)] = []
    func append(_ item: (status: Int, body: String, token: String?)) { lock.lock(); items.append(item); lock.unlock() }
    var all: [(status: Int, body: String, token: String?)] { lock.lock(); defer { lock.unlock() }; return items }
}
