import Foundation
import Testing
import TestSupport

/// The answers an Auth0 SDK expects, from the real daemon over HTTP (issue #17, "Auth0 SDK parity"),
/// and every metric the README lists moving with the traffic it names.
@Suite struct Auth0ParityTests {
    let fixture: SignInFixture
    let metricsURL: String

    init() throws {
        fixture = try SignInFixture(environment: ["IDP_ADMIN_LISTEN": "127.0.0.1:0"])
        var address: String?
        let deadline = Date().addingTimeInterval(5)
        while address == nil, Date() < deadline {
            address = fixture.daemon.standardError.split(separator: "\n").lazy.compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }.first { $0["event"] as? String == "admin_listening" }?["address"] as? String
            if address == nil { Thread.sleep(forTimeInterval: 0.02) }
        }
        metricsURL = "http://\(try #require(address))/metrics"
    }

    /// Signs `email` in with offline_access and returns the token response.
    func tokens(clientID: String, email: String) throws -> [String: Any] {
        let browser = Browser(directory: fixture.daemon.directory)
        let page = try browser.get(fixture.authorizeURL(clientID: clientID, extra: [("scope", "openid profile email offline_access")]))
        let posted = try fixture.submitLogin(browser, page: page, email: email)
        let resumeURL = try #require(posted.headers["location"])
        let resumed = try browser.get(resumeURL)
        let callback = try #require(resumed.headers["location"])
        let code = try #require(queryParameters(of: callback)["code"])
        let response = try fixture.redeem(code: code, clientID: clientID)
        #expect(response.status == 200, "\(response.text)")
        return try response.json()
    }

    func refresh(_ token: String, clientID: String) throws -> Curl.Response {
        try Browser(directory: fixture.daemon.directory).post(fixture.issuer + "oauth/token", form: [
            ("grant_type", "refresh_token"), ("client_id", clientID), ("refresh_token", token)])
    }

    func userinfo(_ accessToken: String) throws -> [String: Any] {
        try Curl.get(fixture.issuer + "userinfo", ["-H", "Authorization: Bearer \(accessToken)"]).json()
    }

    /// `name{labels} value` lines of the scrape, summed per metric name.
    func scrape() throws -> [String: Double] {
        var values: [String: Double] = [:]
        for line in try Curl.get(metricsURL).text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Double(parts[1]) else { continue }
            let name = String(parts[0].prefix { $0 != "{" })
            values[name, default: 0] += value
        }
        return values
    }

    @Test func nameAndNicknameDefaultAndUpdatedAtHasBothForms() throws {
        let app = try fixture.createApp()
        let created = try fixture.daemon.admin(["users", "create", "--email", "carol.x@example.com", "--password-stdin"],
                                               input: SignInFixture.password + "\n")
        #expect(created.status == 0, "\(created.stderr)")
        let first = try tokens(clientID: app.clientID, email: "carol.x@example.com")
        let idClaims = try SignInFixture.claims(of: try #require(first["id_token"] as? String))
        let info = try userinfo(try #require(first["access_token"] as? String))
        for claims in [idClaims, info] {
            #expect(claims["name"] as? String == "carol.x@example.com")
            #expect(claims["nickname"] as? String == "carol.x")
            #expect((claims["updated_at"] as? String)?.hasSuffix("Z") == true, "\(claims)")
        }

        let updated = try fixture.daemon.admin(["apps", "update", app.clientID, "--updated-at-format", "number"])
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(try fixture.daemon.admin(["apps", "show", app.clientID]).stdout.contains("updated_at_format: number"))
        let refreshed = try refresh(try #require(first["refresh_token"] as? String), clientID: app.clientID)
        let next = try refreshed.json()
        let numeric = try SignInFixture.claims(of: try #require(next["id_token"] as? String))
        #expect(numeric["updated_at"] is NSNumber && !(numeric["updated_at"] is String), "\(numeric)")
        #expect(try userinfo(try #require(next["access_token"] as? String))["updated_at"] is NSNumber)
    }

    @Test func aDeletedUsersRefreshTokenGetsAuth0sText() throws {
        let app = try fixture.createApp()
        try fixture.createUser("gone@example.com")
        let issued = try tokens(clientID: app.clientID, email: "gone@example.com")
        #expect(try fixture.daemon.admin(["users", "delete", "gone@example.com"]).status == 0)
        let response = try refresh(try #require(issued["refresh_token"] as? String), clientID: app.clientID)
        #expect(response.status == 400)
        let body = try response.json()
        #expect(body["error"] as? String == "invalid_grant")
        #expect(body["error_description"] as? String == "The refresh_token was generated for a user who doesn't exist anymore.")
        // Any other dead token keeps the usual text.
        let unknown = try refresh("not-a-token", clientID: app.clientID).json()
        #expect(unknown["error_description"] as? String == "Unknown or invalid refresh token.")
    }

    /// Each metric the README's table names, with the traffic that must move it.
    @Test func everyDocumentedMetricMovesWithItsTraffic() throws {
        let readme = try String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md").path, encoding: .utf8)
        let documented = Set(readme.split(separator: "\n").filter { $0.hasPrefix("| `gatehouse_") }.compactMap { line in
            line.split(separator: "`").dropFirst().first.map(String.init)
        })
        #expect(documented.count >= 10, "README metrics table: \(documented)")
        let before = try scrape()

        let app = try fixture.createApp(extra: ["--refresh-reuse-interval", "0"])
        try fixture.createUser("metrics@example.com")
        let wrong = Browser(directory: fixture.daemon.directory)
        _ = try fixture.submitLogin(wrong, page: try wrong.get(fixture.authorizeURL(clientID: app.clientID)),
                                    email: "metrics@example.com", password: "not the password at all")
        let issued = try tokens(clientID: app.clientID, email: "metrics@example.com")
        let refreshToken = try #require(issued["refresh_token"] as? String)
        #expect(try refresh(refreshToken, clientID: app.clientID).status == 200)
        // The rotated token again, outside the (zero) reuse window: reuse, and the family is revoked.
        #expect(try refresh(refreshToken, clientID: app.clientID).status == 400)
        #expect(fixture.daemon.standardError.contains("refresh_token_reused"))

        var after: [String: Double] = [:]
        _ = try Curl.get(fixture.issuer + "readyz")
        _ = try Curl.get(metricsURL.replacingOccurrences(of: "/metrics", with: "/readyz"))
        // A histogram moves in its _count; a gauge of sizes or sessions by being above zero.
        let moved: (String) -> Bool = { name in
            let key = after[name + "_count"] != nil ? name + "_count" : name
            return (after[key] ?? 0) > (before[key] ?? 0) || ((name.hasSuffix("_bytes") || name.hasSuffix("_sessions")) && (after[key] ?? 0) > 0)
        }
        let deadline = Date().addingTimeInterval(5)
        repeat {
            after = try scrape()
            if documented.allSatisfy({ moved($0) || $0.contains("maintenance_") || $0.contains("_mail_") || $0.contains("start_time")
                || $0 == "gatehouse_build_info" }) { break }
            Thread.sleep(forTimeInterval: 0.1)
        } while Date() < deadline
        for name in documented {
            switch name {
            case "gatehouse_build_info", "gatehouse_process_start_time_seconds":
                #expect((after[name] ?? 0) > 0, "\(name) is set")
            case let maintenance where maintenance.hasPrefix("gatehouse_maintenance_"):
                // The run at start: present (Storage tests and DaemonMaintenanceTests drive purges that move them).
                #expect(try Curl.get(metricsURL).text.contains("# TYPE \(maintenance) "), "\(maintenance) is exported")
            case let mail where mail.hasPrefix("gatehouse_mail_"):
                // This daemon has no email configured; MailSenderTests drive sent, failed and retries.
                #expect(try Curl.get(metricsURL).text.contains("# TYPE \(mail.split(separator: "{").first ?? "") "), "\(mail) is exported")
            default:
                #expect(moved(name), "\(name): \(before[name] ?? 0) → \(after[name] ?? 0)")
            }
        }
        #expect((after["gatehouse_refresh_token_reuse_detected_total"] ?? 0) == (before["gatehouse_refresh_token_reuse_detected_total"] ?? 0) + 1)
    }
}
