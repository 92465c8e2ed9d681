import Foundation
import Testing
import TestSupport

/// The outage test, on the real binaries: the SMTP server is down while three messages
/// are queued, `idp` is restarted, the server comes back, and all three arrive.
@Suite struct MailOutageTests {
    static func queue(_ environment: [String: String], _ directory: TemporaryDirectory) throws -> [[String: Any]] {
        let result = try AdminProcess.run(["email", "queue", "--json"], environment: environment, directory: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
    }

    @Test func nothingIsLostAcrossAnOutageAndARestart() throws {
        let directory = try TemporaryDirectory("idp-mail-outage")
        let port = Daemon.freePort()
        let environment = ["IDP_EMAIL_FROM": "Gatehouse <no-reply@example.com>", "IDP_SMTP_URL": "smtp://127.0.0.1:\(port)"]
        var daemon = try Daemon(environment: environment, directory: directory)

        let recipients = ["ann@example.org", "bob@example.net", "chie@example.jp"]
        for recipient in recipients {
            let queued = try AdminProcess.run(["email", "test", recipient, "--queue", "--locale", recipient.hasSuffix(".jp") ? "ja" : "en"],
                                              environment: environment, directory: directory.path)
            #expect(queued.status == 0, "\(queued.stderr)")
        }
        // The running daemon picks them up (within its 5 s poll), fails to connect, and schedules retries.
        let deadline = Date().addingTimeInterval(20)
        var entries = try Self.queue(environment, directory)
        while Date() < deadline, !(entries.count == 3 && entries.allSatisfy { ($0["attempts"] as? Int ?? 0) >= 1 && $0["status"] as? String == "pending" }) {
            Thread.sleep(forTimeInterval: 0.2)
            entries = try Self.queue(environment, directory)
        }
        #expect(entries.count == 3)
        #expect(entries.allSatisfy { $0["status"] as? String == "pending" && ($0["attempts"] as? Int ?? 0) >= 1 })
        #expect(entries.allSatisfy { ($0["last_error"] as? String)?.hasPrefix("cannot connect") == true })
        #expect(daemon.standardError.contains("\"mail_retry\""))
        #expect(!daemon.standardError.contains("ann@example.org"), "log lines name no recipient")
        #expect(daemon.stop() == 0)

        daemon = try Daemon(environment: environment, directory: directory)
        defer { daemon.stop() }
        let smtp = try SMTPSink(port: port)
        // The retries come due within the first backoff (15 s), and the restarted sender sends them.
        let received = smtp.waitForMessages(3, timeout: 40)
        #expect(Set(received.flatMap(\.envelopeTo)) == Set(recipients))
        #expect(received.allSatisfy { $0.raw.contains("Message-ID: <") })
        let done = Date().addingTimeInterval(5)
        while Date() < done, try Self.queue(environment, directory).contains(where: { $0["status"] as? String != "sent" }) {
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(try Self.queue(environment, directory).allSatisfy { $0["status"] as? String == "sent" })
    }

    @Test func anUnreadablePasswordFileStopsStartup() throws {
        let directory = try TemporaryDirectory("idp-mail-config")
        let daemon = try Daemon(environment: ["IDP_EMAIL_FROM": "no-reply@example.com", "IDP_SMTP_URL": "smtp://127.0.0.1:25",
                                              "IDP_SMTP_USERNAME": "u", "IDP_SMTP_PASSWORD_FILE": directory.file("missing")],
                                directory: directory, waitForBanner: false)
        #expect(daemon.waitForExit() == 1)
        #expect(daemon.standardError.contains("cannot set up email delivery") && daemon.standardError.contains("smtp_password_file"))
    }

    @Test func aBadEmailSettingIsAConfigurationError() throws {
        let daemon = try Daemon(environment: ["IDP_SMTP_URL": "smtp://mail.example.com"], waitForBanner: false)
        #expect(daemon.waitForExit() == 78)
        #expect(daemon.standardError.contains("email_from"))
    }
}
