import Foundation
import Testing
import TestSupport

/// G03/G06 through the real daemon: a locked account refuses even the right password, saying so
/// (Auth0's text), and rotating X-Forwarded-For from an untrusted peer does not escape the lock.
@Suite struct LoginThrottleDaemonTests {
    @Test func aLockedAccountRefusesEvenTheRightPasswordAndSaysSo() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        let browser = Browser(directory: fixture.daemon.directory)
        let page = try browser.get(fixture.authorizeURL(clientID: app.clientID))
        let tx = try #require(HTMLForm.value(of: "tx", in: page.text))
        let csrf = try #require(HTMLForm.value(of: "csrf_token", in: page.text))
        for attempt in 0..<10 {
            let response = try browser.post(fixture.issuer + "login",
                                            form: [("tx", tx), ("csrf_token", csrf), ("email", "alice@example.com"),
                                                   ("password", "wrong \(attempt)"), ("action", "login")],
                                            headers: ["X-Forwarded-For: 192.0.2.\(attempt)"])
            #expect(response.status == 401)
        }
        let right = try fixture.submitLogin(browser, page: page)
        #expect(right.status == 401)
        #expect(right.text.contains("Your account has been blocked after multiple consecutive login attempts. Try again in"))
        #expect(browser.cookies["gatehouse_session"] == nil)
    }
}
