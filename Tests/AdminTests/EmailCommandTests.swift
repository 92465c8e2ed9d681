import Foundation
import Testing
import TestSupport
@testable import Admin

@Suite struct EmailCommandTests {
    static func harness(_ extra: [String: String]) throws -> AdminHarness {
        var harness = try AdminHarness("email")
        harness.environment.merge(["IDP_EMAIL_FROM": "Gatehouse <no-reply@example.com>"].merging(extra) { $1 }) { $1 }
        return harness
    }

    @Test func withoutATransportTheCommandSaysSo() throws {
        let result = try AdminHarness("email").run(["email", "test", "alice@example.org"])
        #expect(result.status == 1 && result.standardError.contains("email is not configured"))
    }

    @Test func aTestMessageIsDeliveredSynchronously() throws {
        let sink = try SMTPSink()
        let harness = try Self.harness(["IDP_SMTP_URL": "smtp://127.0.0.1:\(sink.port)"])
        let json = try harness.json(["email", "test", "alice@example.org", "--locale", "ja"])
        #expect(json["sent"] as? Bool == true && json["via"] as? String == "smtp://127.0.0.1:\(sink.port)")
        let received = try #require(sink.messages().first)
        #expect(received.envelopeTo == ["alice@example.org"])
        #expect(received.raw.contains("Subject: =?UTF-8?B?"), "the Japanese test subject")
    }

    @Test func theExactFailureIsReported() throws {
        let harness = try Self.harness(["IDP_SMTP_URL": "smtp://127.0.0.1:\(Daemon.freePort())"])
        let result = harness.run(["email", "test", "alice@example.org", "--json"])
        #expect(result.status == 1)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(json["sent"] as? Bool == false && json["failure"] as? String == "connection")
        let text = harness.run(["email", "test", "alice@example.org"])
        #expect(text.status == 1 && text.standardOutput.contains("not sent via smtp://127.0.0.1:") && text.standardOutput.contains("cannot connect"))
    }

    @Test func aRejectedRecipient() throws {
        let sink = try SMTPSink(options: ["--reject", "nobody@example.org"])
        let harness = try Self.harness(["IDP_SMTP_URL": "smtp://127.0.0.1:\(sink.port)"])
        let result = harness.run(["email", "test", "nobody@example.org", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(result.status == 1 && json["failure"] as? String == "rejected" && json["reply_code"] as? Int == 550)
    }

    @Test func queuedMessagesAreListedWithoutTheirValues() throws {
        let harness = try Self.harness(["IDP_SMTP_URL": "smtp://127.0.0.1:25"])
        #expect(try harness.json(["email", "test", "alice@example.org", "--queue"])["queued"] as? Bool == true)
        let entries = try harness.jsonArray(["email", "queue"])
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry["status"] as? String == "pending" && entry["to"] as? String == "alice@example.org" && entry["template"] as? String == "test")
        #expect(entry["attempts"] as? Int == 0 && entry["next_attempt_at"] is String)
        #expect(Set(entry.keys) == ["id", "status", "to", "template", "locale", "attempts", "queued_at", "next_attempt_at",
                                    "last_attempt_at", "finished_at", "last_error"])
        #expect(try harness.jsonArray(["email", "queue", "--status", "failed"]).isEmpty)
        #expect(harness.run(["email", "queue", "--status", "sending"]).status == 2)
        #expect(harness.run(["email", "queue"]).standardOutput.contains("alice@example.org"))
        #expect(try harness.auditEvents().contains { $0.event == "email.test_queued" && $0.details["recipient_domain"] == "example.org" })
    }

    /// STARTTLS through the settings a deployment uses: smtp_ca_file trusts the server's certificate,
    /// and the password comes from smtp_password_file.
    @Test func startTLSAndAuthenticationThroughTheSettings() throws {
        let files = try TemporaryDirectory("cert")
        let certificate = try TestCertificate(in: files)
        let sink = try SMTPSink(options: ["--tls-cert", certificate.certificate, "--tls-key", certificate.key, "--require-starttls",
                                          "--auth", "mailer:pa55"])
        try "pa55\n".write(toFile: files.file("password"), atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: files.file("password"))
        let harness = try Self.harness(["IDP_SMTP_URL": "smtp://localhost:\(sink.port)", "IDP_SMTP_CA_FILE": certificate.certificate,
                                        "IDP_SMTP_USERNAME": "mailer", "IDP_SMTP_PASSWORD_FILE": files.file("password")])
        #expect(try harness.json(["email", "test", "alice@example.org"])["sent"] as? Bool == true)
        let received = try #require(sink.messages().first)
        #expect(received.tls && received.login == "mailer")
        // Without the CA file the certificate is not trusted: nothing is sent.
        var untrusted = harness
        untrusted.environment["IDP_SMTP_CA_FILE"] = nil
        let refused = untrusted.run(["email", "test", "alice@example.org", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(refused.standardOutput.utf8)) as? [String: Any])
        #expect(refused.status == 1 && json["failure"] as? String == "tls")
        #expect(sink.messages().count == 1)
    }

    @Test func doctorReportsTheEmailSetup() throws {
        let harness = try Self.harness(["IDP_SENDMAIL_COMMAND": "/nonexistent/sendmail -t"])
        let output = harness.run(["doctor"]).standardOutput
        #expect(output.contains("/nonexistent/sendmail is not an executable file"))
        let none = try AdminHarness("email-none").run(["doctor"]).standardOutput
        #expect(none.contains("not configured: no mail is sent"))
    }

    @Test func helpListsTheEmailCommands() {
        let help = AdminCLI.run(["help"], environment: [:], readInput: { "" }).standardOutput
        #expect(help.contains("email test") && help.contains("email queue"))
    }
}
