import Foundation
import HTTP
import Model
@testable import Server
import Settings

enum Fixtures {
    static let httpsIssuer = try! Issuer.parse("https://id.example.com/auth/").get()
    static let httpIssuer = try! Issuer.parse("http://127.0.0.1:8080/").get()

    static func text(_ response: HTTPResponse) -> String {
        String(decoding: response.body, as: UTF8.self)
    }

    /// How many times `needle` occurs in `haystack`.
    static func count(_ needle: String, in haystack: String) -> Int {
        haystack.components(separatedBy: needle).count - 1
    }

    static func client(_ id: String, type: Client.ApplicationType = .native, team: String? = nil, bundle: String? = nil,
                       androidPackage: String? = nil, androidSHA256: [String] = [], webOrigins: [String] = []) -> Client {
        Client(clientID: id, name: id, type: type, webOrigins: webOrigins, appleTeamID: team, bundleID: bundle,
               androidPackage: androidPackage, androidSHA256: androidSHA256, createdAt: Date(timeIntervalSince1970: 0))
    }

    /// Every page renderer, for header checks that must hold on all of them.
    static let pages: [(String, HTTPResponse)] = [
        ("login", LoginPage.render(appName: "App", issuer: httpsIssuer, transactionID: "tx1", csrfToken: "c1",
                                   email: nil, errorMessage: nil, status: 200)),
        ("login error", LoginPage.render(appName: "App", issuer: httpsIssuer, transactionID: "tx1", csrfToken: "c1",
                                         email: "a@b.c", errorMessage: "Wrong email or password.", status: 401)),
        ("error", ErrorPage.render(title: "Something went wrong",
                                   message: "This application is not configured for that callback URL", status: 400)),
        ("error with issuer", ErrorPage.render(title: "Oops", message: "No", status: 404, issuer: httpsIssuer)),
        ("form post", FormPostPage.render(issuer: httpsIssuer, action: "https://app.example.org/cb", fields: [("code", "x")])),
        ("signed out", SignedOutPage.render(issuer: httpsIssuer, appName: "App")),
        ("logout confirm", LogoutConfirmPage.render(issuer: httpsIssuer, csrfToken: "c", fields: [("state", "s")], appName: "App")),
    ]
}
