import Foundation
import HTTP
import Model
import OIDC
import Storage
import Testing
import TestSupport

/// Catalogue rows of sessions, the login page's abuse control and the browser headers, over the
/// real routes in-process.
@Suite("Negative catalogue: sessions and pages")
struct NegativeCataloguePageTests {
    /// F03: prompt=login over a live session shows the form again, and the new ID token's auth_time is later.
    @Test func promptLoginAuthenticatesAgainWithANewAuthTime() throws {
        let clock = MutableClock(Date())
        let rig = try CatalogueRig(clock: clock)
        let first = try SignInFixture.claims(of: try #require(rig.tokens()["id_token"] as? String))
        clock.advance(by: 5)
        let path = rig.authorizePath([("prompt", "login")])
        let page = rig.harness.get(path)
        #expect(page.status == 200 && HTMLForm.value(of: "csrf_token", in: page.text) != nil)
        let second = try SignInFixture.claims(of: try #require(rig.tokens(path)["id_token"] as? String))
        #expect(second["sub"] as? String == first["sub"] as? String)
        let before = try #require(first["auth_time"] as? Int), after = try #require(second["auth_time"] as? Int)
        #expect(after >= before + 5)
    }

    /// G05: many emails from one address lock that address: 429 with Retry-After and no session,
    /// while another address still signs in (no lockout of everyone).
    @Test func manyEmailsFromOneAddressGet429WithRetryAfter() throws {
        let clock = MutableClock(Date())
        let rig = try CatalogueRig(clock: clock)
        let throttle = LoginThrottle(store: SQLiteLoginThrottleStore(store: rig.harness.store), clock: clock)
        for index in 0..<100 {
            clock.advance(by: 2)
            try throttle.recordFailure(email: "user\(index)@example.com", ip: "203.0.113.9")
        }
        let page = rig.harness.get(rig.authorizePath())
        let locked = rig.submit(page, from: "203.0.113.9")
        #expect(locked.status == 429)
        #expect(Int(locked.headers["Retry-After"] ?? "") ?? 0 > 0)
        #expect(locked.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(rig.harness.cookies["__Host-gatehouse_session"] == nil)
        #expect(rig.submit(page, from: "198.51.100.7").status == 303)
    }

    /// G11: a session cookie planted before login never becomes a session; the transaction (the
    /// pre-login cookie) is single use once the code went out.
    @Test func plantedSessionCookiesAndSpentTransactionsAreWorthless() throws {
        let rig = try CatalogueRig()
        let planted = "__Host-gatehouse_session=attacker-chosen-value"
        let page = rig.harness.get(rig.authorizePath(), headers: [("Cookie", planted)])
        let tx = try #require(HTMLForm.value(of: "tx", in: page.text))
        let transactionCookie = try #require(rig.harness.cookies["__Host-gatehouse_tx"])
        let posted = rig.submit(page)
        #expect(posted.status == 303)
        #expect(rig.harness.cookies["__Host-gatehouse_session"] != "attacker-chosen-value")
        let resume = try #require(posted.location)
        #expect(rig.harness.get(resume).status == 302)

        let silent = rig.authorizePath([("prompt", "none")])
        rig.harness.clearCookies()
        let withPlanted = rig.harness.get(silent, headers: [("Cookie", planted)])
        #expect(queryParameters(of: try #require(withPlanted.location))["error"] == "login_required")
        let replayed = rig.harness.get(resume, headers: [("Cookie", "__Host-gatehouse_tx=" + transactionCookie)])
        #expect(replayed.status == 400 && replayed.location == nil)
        let again = rig.harness.post("/login", form: [("tx", tx), ("csrf_token", HTMLForm.value(of: "csrf_token", in: page.text) ?? ""),
                                                      ("email", CatalogueRig.email), ("password", CatalogueRig.password), ("action", "login")],
                                     headers: [("Cookie", "__Host-gatehouse_tx=" + transactionCookie)])
        #expect(again.status == 400 && again.location == nil)
    }

    /// Every HTML page the routes answer, each reached the way a browser would.
    static func pages(_ rig: CatalogueRig) -> [(String, RouteHarness.Response)] {
        let origin = [("Origin", "https://evil.example")]
        let h = rig.harness
        var pages: [(String, RouteHarness.Response)] = []
        let login = h.get(rig.authorizePath(), headers: origin)
        pages.append(("login page", login))
        pages.append(("login error 401", rig.submit(login, password: "wrong")))
        pages.append(("CSRF refused 403", h.post("/login", form: [("tx", HTMLForm.value(of: "tx", in: login.text) ?? ""),
                                                                 ("csrf_token", "forged"), ("action", "login")], headers: origin)))
        pages.append(("unreadable form 400", h.send("POST", "/login", headers: [("Content-Type", "application/x-www-form-urlencoded")] + origin,
                                                    body: Array("a=%zz".utf8), from: "198.51.100.7")))
        pages.append(("unknown client 400", h.get("/authorize?client_id=nobody&response_type=code", headers: origin)))
        pages.append(("resume expired 400", h.get("/authorize/resume?tx=nothing", headers: origin)))
        pages.append(("v2 logout refused 400", h.get("/v2/logout?client_id=\(rig.nativeID)&returnTo=https%3A%2F%2Fevil.example%2F", headers: origin)))
        pages.append(("oidc logout refused 400", h.get("/oidc/logout?client_id=\(rig.nativeID)&post_logout_redirect_uri=https%3A%2F%2Fevil.example%2F",
                                                       headers: origin)))
        pages.append(("signed out 200", h.get("/oidc/logout", headers: origin)))
        _ = rig.submit(login)
        pages.append(("logout confirmation 200", h.get("/oidc/logout?client_id=\(rig.nativeID)&post_logout_redirect_uri="
                                                       + RouteHarness.encode(CatalogueRig.logoutURL), headers: origin)))
        h.clearCookies()
        let expired = h.post("/login", form: [("tx", "gone"), ("csrf_token", "x"), ("action", "login")], headers: origin)
        pages.append(("sign-in expired 400", expired))
        return pages
    }

    /// H01, H02, H03, H05 on every page as served: framing forbidden, no referrer, nosniff, UTF-8,
    /// scripts only from the issuer, no-store, and no CORS answer to a foreign Origin.
    @Test func everyPageAsServedCarriesTheBrowserHardeningHeaders() throws {
        let rig = try CatalogueRig()
        let pages = Self.pages(rig)
        #expect(Set(pages.map(\.1.status)) == [200, 400, 401, 403])
        for (name, page) in pages {
            let headers = page.headers
            #expect(headers["Content-Type"] == "text/html; charset=utf-8", "\(name)")
            #expect(headers["X-Frame-Options"] == "DENY", "\(name)")
            let csp = headers["Content-Security-Policy"] ?? ""
            #expect(csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'") && !csp.contains("unsafe"), "\(name): \(csp)")
            #expect(headers["Referrer-Policy"] == "no-referrer", "\(name)")
            #expect(headers["X-Content-Type-Options"] == "nosniff", "\(name)")
            #expect(headers["Cache-Control"] == "no-store", "\(name)")
            #expect(!headers.contains { $0.0.lowercased().hasPrefix("access-control-") }, "\(name)")
            #expect(!page.text.contains("evil.example"), "\(name) echoes the foreign URL")
        }
    }

    /// H04 on the cookies the routes really set over an https issuer.
    @Test func everyCookieSetIsHostPrefixedSecureHttpOnlyLax() throws {
        let rig = try CatalogueRig()
        let page = rig.harness.get(rig.authorizePath())
        let posted = rig.submit(page)
        let resumed = rig.harness.get(try #require(posted.location))
        let loggedOut = rig.harness.get("/v2/logout")
        let setCookies = [page, posted, resumed, loggedOut].flatMap { $0.headers.values("Set-Cookie") }
        #expect(setCookies.count >= 4)
        for cookie in setCookies {
            let attributes = cookie.components(separatedBy: "; ")
            #expect(attributes[0].hasPrefix("__Host-"), "\(cookie)")
            #expect(["Secure", "HttpOnly", "SameSite=Lax", "Path=/"].allSatisfy(attributes.contains), "\(cookie)")
            #expect(!cookie.lowercased().contains("domain="), "\(cookie)")
        }
    }
}
