import Foundation
import Testing
@testable import Settings

@Suite struct EmailSettingsTests {
    func load(_ environment: [String: String]) throws -> Settings {
        try SettingsLoader.load(configPath: nil, environment: environment).settings
    }

    func problems(_ environment: [String: String]) -> [String] {
        do {
            _ = try SettingsLoader.load(configPath: nil, environment: environment)
            return []
        } catch let error as ConfigurationError {
            return error.problems.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    @Test func noTransportMeansNoDelivery() throws {
        #expect(try load([:]).emailDelivery == nil)
        #expect(try load(["IDP_EMAIL_FROM": "no-reply@example.com"]).emailDelivery == nil)
    }

    @Test func smtpDelivery() throws {
        let settings = try load(["IDP_EMAIL_FROM": "Example <no-reply@example.com>", "IDP_SMTP_URL": "smtp://smtp.example.com",
                                 "IDP_SMTP_USERNAME": "mailer", "IDP_SMTP_PASSWORD": "pw", "IDP_EMAIL_MAX_AGE": "2h"])
        let delivery = try #require(settings.emailDelivery)
        #expect(delivery.from == "Example <no-reply@example.com>" && delivery.maxAge == .seconds(7200))
        guard case .smtp(let url, let username, _, _, _) = delivery.transport else { Issue.record("not smtp"); return }
        #expect(url.description == "smtp://smtp.example.com:587" && !url.isLoopback && username == "mailer")
        #expect(try delivery.smtpPassword() == "pw")
        #expect(EffectiveSettings.describe(settings)["smtp_url"] == "smtp://smtp.example.com:587")
        #expect(SettingKey.named("smtp_password")?.isSecret == true)
    }

    @Test func thePasswordFileIsReadWithoutItsLineBreak() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-\(UUID().uuidString)").path
        try "s3cret\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let settings = try load(["IDP_EMAIL_FROM": "a@example.com", "IDP_SMTP_URL": "smtps://smtp.example.com",
                                 "IDP_SMTP_USERNAME": "u", "IDP_SMTP_PASSWORD_FILE": path])
        #expect(try settings.emailDelivery?.smtpPassword() == "s3cret")
        let missing = try load(["IDP_EMAIL_FROM": "a@example.com", "IDP_SMTP_URL": "smtps://smtp.example.com",
                                "IDP_SMTP_USERNAME": "u", "IDP_SMTP_PASSWORD_FILE": path + ".missing"])
        #expect(throws: ConfigurationError.self) { try missing.emailDelivery?.smtpPassword() }
    }

    @Test func sendmailDelivery() throws {
        let delivery = try #require(try load(["IDP_EMAIL_FROM": "a@example.com", "IDP_SENDMAIL_COMMAND": "/usr/bin/msmtp  -t"]).emailDelivery)
        #expect(delivery.transport == .sendmail(["/usr/bin/msmtp", "-t"]))
    }

    @Test(arguments: [
        ("smtp://localhost:25", "smtp://localhost:25", true), ("smtp://127.0.0.2", "smtp://127.0.0.2:587", true),
        ("smtp://[::1]:2525", "smtp://[::1]:2525", true), ("SMTPS://mail.example.com", "smtps://mail.example.com:465", false),
        ("smtp://10.0.0.5:25", "smtp://10.0.0.5:25", false), ("smtp://127.example.com", "smtp://127.example.com:587", false),
        ("smtp://localhost.evil.com", "smtp://localhost.evil.com:587", false),
    ])
    func smtpURLs(text: String, normalised: String, loopback: Bool) throws {
        let url = try SMTPURL.parse(text).get()
        #expect(url.description == normalised && url.isLoopback == loopback)
    }

    /// Every problem is reported like the other keys: key, source and what was expected.
    @Test(arguments: [
        (["IDP_EMAIL_FROM": "a@example.com", "IDP_SMTP_URL": "smtp://h.example.com", "IDP_SENDMAIL_COMMAND": "msmtp -t"],
         "sendmail_command: set either smtp_url or sendmail_command, not both"),
        (["IDP_SMTP_URL": "smtp://h.example.com"], "email_from: required when email is configured"),
        (["IDP_SENDMAIL_COMMAND": "msmtp -t"], "email_from: required when email is configured"),
        (["IDP_EMAIL_FROM": "not an address", "IDP_SMTP_URL": "smtp://h.example.com"], "email_from: expected an address"),
        (["IDP_EMAIL_FROM": "Evil\nBcc: x@y.z <a@example.com>"], "email_from: expected an address"),
        (["IDP_EMAIL_FROM": "a@b@example.com"], "email_from: expected an address"),
        (["IDP_EMAIL_FROM": "a@example.com", "IDP_SMTP_URL": "http://h.example.com"], "smtp_url: expected smtp://host[:port]"),
        (["IDP_EMAIL_FROM": "a@example.com", "IDP_SMTP_URL": "smtp://user:pw@h.example.com"], "smtp_url: put the user name in smtp_username"),
        (["IDP_EMAIL_FROM": "a@example.com", "IDP_SMTP_URL": "smtp://h.example.com:70000"], "smtp_url: expected a port from 1 to 65535"),
        (["IDP_EMAIL_FROM": "a@example.com", "IDP_SMTP_URL": "smtp://h.example.com/path"], "smtp_url: expected only a host and port"),
        (["IDP_EMAIL_FROM": "a@example.com", "IDP_SMTP_URL": "smtp://h.example.com", "IDP_SMTP_PASSWORD": "pw"], "smtp_username: required when a password is set"),
        (["IDP_SMTP_USERNAME": "u"], "smtp_username: has no effect without smtp_url"),
        (["IDP_EMAIL_FROM": "a@example.com", "IDP_SENDMAIL_COMMAND": "msmtp -t | tee /tmp/x"], "sendmail_command: the command runs without a shell"),
        (["IDP_EMAIL_MAX_AGE": "10s"], "email_max_age: expected a duration from 60s"),
    ])
    func problemsAreReported(environment: [String: String], expected: String) {
        let found = problems(environment)
        #expect(found.contains { $0.contains(expected) }, "\(found)")
    }
}
