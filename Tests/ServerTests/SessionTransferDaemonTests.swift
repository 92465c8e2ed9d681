import Foundation
import Testing
import TestSupport

/// Native to web against the real daemon with curl, as Auth0.swift and a web view do it: the app
/// signs in and exchanges its refresh token (JSON body) for a session transfer token; a fresh web
/// view opens the web app's `/authorize` with it (query, then cookie) and gets the web app's code
/// without a login page; the web app's tokens name the same user. Then the token's single use, its
/// address binding (curl from 127.0.0.2) and the operator's revocation of the parent.
@Suite struct SessionTransferDaemonTests {
    static let webCallback = "http://127.0.0.1/web/callback"

    struct Apps {
        let native: String
        let web: String
        let userID: String
    }

    func setUp(_ fixture: SignInFixture) throws -> Apps {
        let native = try fixture.createApp(extra: ["--allow-session-transfer", "on"])
        let web = try fixture.createApp("spa", callbacks: [Self.webCallback], extra: ["--accept-session-transfer", "cookie,query"])
        return Apps(native: native.clientID, web: web.clientID, userID: try fixture.createUser())
    }

    /// The app's sign-in with `offline_access`; its refresh token.
    func appRefreshToken(_ fixture: SignInFixture, _ apps: Apps) throws -> String {
        let callback = try fixture.signIn(Browser(directory: fixture.daemon.directory), clientID: apps.native,
                                          extra: [("scope", "openid profile email offline_access")])
        let token = try fixture.redeem(code: try #require(queryParameters(of: callback)["code"]), clientID: apps.native)
        return try #require(try token.json()["refresh_token"] as? String)
    }

    /// `ssoExchange(withRefreshToken:)`'s body; the issuer's host without its port.
    func exchange(_ fixture: SignInFixture, _ apps: Apps, refreshToken: String) throws -> [String: Any] {
        let response = try Browser(directory: fixture.daemon.directory).post(fixture.issuer + "oauth/token", json: [
            "client_id": apps.native, "refresh_token": refreshToken, "grant_type": "refresh_token",
            "audience": "urn:127.0.0.1:session_transfer",
        ])
        #expect(response.status == 200, "\(response.text)")
        return try response.json()
    }

    func webAuthorizeURL(_ fixture: SignInFixture, _ apps: Apps, extra: [(String, String)] = []) -> String {
        fixture.authorizeURL(clientID: apps.web, redirectURI: Self.webCallback, extra: extra)
    }

    @Test func theWholeHandoverByQueryAndByCookie() throws {
        let fixture = try SignInFixture()
        let apps = try setUp(fixture)
        let first = try exchange(fixture, apps, refreshToken: try appRefreshToken(fixture, apps))
        let appSub = try SignInFixture.claims(of: try #require(first["id_token"] as? String))["sub"] as? String
        #expect(first["issued_token_type"] as? String == "urn:auth0:params:oauth:token-type:session_transfer_token")

        // Query: a new web view, no login page, the web app's code.
        let webView = Browser(directory: fixture.daemon.directory)
        let viaQuery = try webView.get(webAuthorizeURL(fixture, apps, extra: [("session_transfer_token", try #require(first["access_token"] as? String))]))
        #expect(viaQuery.status == 302, "\(viaQuery.text.prefix(300))")
        let location = try #require(viaQuery.headers["location"])
        #expect(location.hasPrefix(Self.webCallback + "?code="))
        let tokens = try fixture.redeem(code: try #require(queryParameters(of: location)["code"]), clientID: apps.web, redirectURI: Self.webCallback)
        #expect(tokens.status == 200, "\(tokens.text)")
        let webID = try SignInFixture.claims(of: try #require(try tokens.json()["id_token"] as? String))
        #expect(webID["sub"] as? String == appSub && webID["aud"] as? String == apps.web)
        #expect(webView.cookies["gatehouse_session"] != nil)

        // Cookie: the rotated refresh token asks again; the web view carries the app's cookie.
        let second = try exchange(fixture, apps, refreshToken: try #require(first["refresh_token"] as? String))
        let token = try #require(second["access_token"] as? String)
        let viaCookie = try Curl.get(webAuthorizeURL(fixture, apps), ["-H", "Cookie: auth0_session_transfer_token=\(token)"])
        #expect(viaCookie.status == 302 && viaCookie.headers["location"]?.hasPrefix(Self.webCallback + "?code=") == true,
                "\(viaCookie.status) \(viaCookie.text.prefix(300))")
        #expect(viaCookie.headers["set-cookie"] != nil)

        // Used once: the same token again is the login page.
        let again = try Curl.get(webAuthorizeURL(fixture, apps), ["-H", "Cookie: auth0_session_transfer_token=\(token)"])
        #expect(again.status == 200 && HTMLForm.value(of: "csrf_token", in: again.text) != nil)
    }

    @Test func anotherAddressIsRefusedAndRevokingTheParentEndsTheWebSession() throws {
        let fixture = try SignInFixture()
        let apps = try setUp(fixture)
        let refresh = try appRefreshToken(fixture, apps)
        let first = try exchange(fixture, apps, refreshToken: refresh)
        // The daemon listens on 127.0.0.1; curl connects from 127.0.0.2, another client address.
        let elsewhere = try Curl.get(webAuthorizeURL(fixture, apps, extra: [("session_transfer_token", try #require(first["access_token"] as? String))]),
                                     ["--interface", "127.0.0.2"])
        #expect(elsewhere.status == 200 && HTMLForm.value(of: "csrf_token", in: elsewhere.text) != nil, "\(elsewhere.status)")

        let second = try exchange(fixture, apps, refreshToken: try #require(first["refresh_token"] as? String))
        let webView = Browser(directory: fixture.daemon.directory)
        let signedIn = try webView.get(webAuthorizeURL(fixture, apps, extra: [("session_transfer_token", try #require(second["access_token"] as? String))]))
        #expect(signedIn.status == 302)
        #expect(try webView.get(webAuthorizeURL(fixture, apps, extra: [("prompt", "none")])).headers["location"]?.contains("code=") == true)
        let listed = try fixture.daemon.admin(["sessions", "list", "--user", apps.userID, "--json"])
        let sessions = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(sessions.filter { $0["transferred_from"] is String }.count == 1, "\(listed.stdout)")

        // The operator revokes the app's tokens: the web view's session, made by the transfer, ends with them.
        let revoked = try fixture.daemon.admin(["tokens", "revoke", "--user", apps.userID, "--app", apps.native, "--json"])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let silent = try webView.get(webAuthorizeURL(fixture, apps, extra: [("prompt", "none")]))
        #expect(silent.status == 302 && queryParameters(of: silent.headers["location"] ?? "")["error"] == "login_required")
    }
}
