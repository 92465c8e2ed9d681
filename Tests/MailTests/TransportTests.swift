import Foundation
import Settings
import Testing
import TestSupport
@testable import Mail

/// Delivery through a real SMTP server (aiosmtpd on loopback, `Tests/mail/smtp_sink.py`) and a real program.
@Suite struct TransportTests {
    static func message(to: String = "alice@example.org") throws -> [UInt8] {
        try OutgoingMessage(from: MailAddress.parse("Gatehouse <no-reply@example.com>"), to: MailAddress(address: to),
                            subject: "【Gatehouse】テスト", text: "code 123456\n", html: "<p>123456</p>", date: Date()).composed()
    }

    static func smtp(_ url: String, username: String? = nil, password: String? = nil, caFile: String? = nil) throws -> SMTPTransport {
        var configuration = SMTPTransport.Configuration(url: try SMTPURL.parse(url).get(), username: username, password: password, caFile: caFile)
        configuration.connectTimeout = .seconds(5)
        configuration.timeout = .seconds(15)
        return SMTPTransport(configuration)
    }

    static func deliveryError(_ body: () throws -> Void) -> DeliveryError? {
        do { try body() } catch let error as DeliveryError { return error } catch { Issue.record("not a DeliveryError: \(error)") }
        return nil
    }

    @Test func plainLoopbackWithoutSTARTTLSOnOffer() throws {
        let sink = try SMTPSink()
        try Self.smtp("smtp://127.0.0.1:\(sink.port)").send(Self.message(), from: "no-reply@example.com", to: ["alice@example.org"])
        let received = sink.waitForMessages(1)
        #expect(received.count == 1)
        #expect(received.first?.envelopeFrom == "no-reply@example.com" && received.first?.envelopeTo == ["alice@example.org"])
        #expect(received.first?.tls == false)
        let parsed = try ParsedMessage(try #require(received.first?.raw))
        #expect(parsed.subject == "【Gatehouse】テスト" && parsed.text == "code 123456\n")
    }

    /// On loopback STARTTLS is still used whenever the server offers it, with the certificate verified.
    @Test func startTLSIsUsedWhenOffered() throws {
        let files = try TemporaryDirectory("cert")
        let certificate = try TestCertificate(in: files)
        let sink = try SMTPSink(options: ["--tls-cert", certificate.certificate, "--tls-key", certificate.key])
        try Self.smtp("smtp://127.0.0.1:\(sink.port)", caFile: certificate.certificate)
            .send(Self.message(), from: "no-reply@example.com", to: ["alice@example.org"])
        #expect(sink.waitForMessages(1).first?.tls == true)
    }

    @Test func anUntrustedCertificateIsRefused() throws {
        let files = try TemporaryDirectory("cert")
        let certificate = try TestCertificate(in: files)
        let sink = try SMTPSink(options: ["--tls-cert", certificate.certificate, "--tls-key", certificate.key])
        let error = Self.deliveryError { try Self.smtp("smtp://127.0.0.1:\(sink.port)").send(Self.message(), from: "no-reply@example.com", to: ["alice@example.org"]) }
        #expect(error?.kind == .tls)
        #expect(sink.messages().isEmpty)
    }

    @Test func implicitTLS() throws {
        let files = try TemporaryDirectory("cert")
        let certificate = try TestCertificate(in: files)
        let sink = try SMTPSink(options: ["--tls-cert", certificate.certificate, "--tls-key", certificate.key, "--implicit-tls"])
        try Self.smtp("smtps://localhost:\(sink.port)", caFile: certificate.certificate)
            .send(Self.message(), from: "no-reply@example.com", to: ["alice@example.org"])
        #expect(sink.waitForMessages(1).first?.tls == true)
    }

    /// A host that is not loopback never gets the message in clear text: no STARTTLS, no mail.
    @Test func plainTextIsRefusedToANonLoopbackHost() throws {
        guard let address = Self.nonLoopbackAddress() else { return }  // A machine with loopback only has no such host.
        let sink = try SMTPSink(options: ["--host", address])
        let error = Self.deliveryError { try Self.smtp("smtp://\(address):\(sink.port)").send(Self.message(), from: "no-reply@example.com", to: ["alice@example.org"]) }
        #expect(error?.kind == .tls)
        #expect(error?.detail.contains("does not offer STARTTLS") == true)
        #expect(sink.messages().isEmpty)
    }

    @Test func authentication() throws {
        let sink = try SMTPSink(options: ["--auth", "mailer:s3cret pass"])
        try Self.smtp("smtp://127.0.0.1:\(sink.port)", username: "mailer", password: "s3cret pass")
            .send(Self.message(), from: "no-reply@example.com", to: ["alice@example.org"])
        #expect(sink.waitForMessages(1).first?.login == "mailer")

        let wrong = Self.deliveryError {
            try Self.smtp("smtp://127.0.0.1:\(sink.port)", username: "mailer", password: "wrong").send(Self.message(), from: "no-reply@example.com", to: ["alice@example.org"])
        }
        #expect(wrong?.kind == .authentication)
        #expect(wrong?.detail.contains("wrong") == false, "the password never appears in an error")
        #expect(wrong?.isPermanent == false, "an operator fixes the password; queued mail waits")
    }

    @Test func aRejectedRecipientIsPermanent() throws {
        let sink = try SMTPSink(options: ["--reject", "nobody@example.org"])
        let error = Self.deliveryError {
            try Self.smtp("smtp://127.0.0.1:\(sink.port)").send(Self.message(to: "nobody@example.org"), from: "no-reply@example.com", to: ["nobody@example.org"])
        }
        #expect(error?.kind == .rejected)
        #expect(error?.replyCode == 550)
        #expect(error?.isPermanent == true)
    }

    @Test func connectionRefused() throws {
        let port = Daemon.freePort()
        let error = Self.deliveryError { try Self.smtp("smtp://127.0.0.1:\(port)").send(Self.message(), from: "no-reply@example.com", to: ["alice@example.org"]) }
        #expect(error?.kind == .connection)
        #expect(error?.isPermanent == false)
    }

    @Test func invalidEnvelopeAddressesNeverReachTheServer() throws {
        let error = Self.deliveryError { try Self.smtp("smtp://127.0.0.1:1").send(Self.message(), from: "no-reply@example.com", to: ["a@b.c>\r\nRCPT TO:<x@y.z"]) }
        #expect(error?.kind == .rejected)
    }

    // MARK: sendmail

    static func script(_ body: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("fake-sendmail")
        try ("#!/bin/sh\n" + body).write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    @Test func sendmailGetsTheMessageOnStandardInput() throws {
        let directory = try TemporaryDirectory("sendmail")
        let program = try Self.script("cat > \"$2\"\nenv > \"$2.env\"\n", in: directory)
        setenv("IDP_SMTP_PASSWORD", "must-not-leak", 1)
        defer { unsetenv("IDP_SMTP_PASSWORD") }
        try SendmailTransport(command: [program, "-t", directory.file("out.eml")]).send(Self.message(), from: "no-reply@example.com", to: ["alice@example.org"])
        let written = try #require(FileManager.default.contents(atPath: directory.file("out.eml")))
        #expect(try ParsedMessage(Array(written)).subject == "【Gatehouse】テスト")
        let environment = String(decoding: FileManager.default.contents(atPath: directory.file("out.eml.env")) ?? Data(), as: UTF8.self)
        #expect(!environment.contains("IDP_"), "the daemon's secrets stay with it")
    }

    @Test func sendmailFailureCarriesItsStatusAndMessage() throws {
        let directory = try TemporaryDirectory("sendmail")
        let program = try Self.script("cat > /dev/null\necho 'msmtp: account default not found' >&2\nexit 78\n", in: directory)
        let error = Self.deliveryError { try SendmailTransport(command: [program, "-t"]).send(Self.message(), from: "no-reply@example.com", to: ["alice@example.org"]) }
        #expect(error?.kind == .command)
        #expect(error?.detail.contains("exited with status 78: msmtp: account default not found") == true)
    }

    @Test func aMissingSendmailProgram() throws {
        let error = Self.deliveryError { try SendmailTransport(command: ["/nonexistent/sendmail", "-t"]).send(Self.message(), from: "no-reply@example.com", to: ["alice@example.org"]) }
        #expect(error?.kind == .command)
        #expect(error?.detail.contains("cannot run /nonexistent/sendmail") == true)
    }

    @Test func aHangingSendmailIsKilledAtTheTimeout() throws {
        let directory = try TemporaryDirectory("sendmail")
        let program = try Self.script("sleep 30\n", in: directory)
        var transport = SendmailTransport(command: [program])
        transport.timeout = .milliseconds(300)
        let started = Date()
        let error = Self.deliveryError { try transport.send(Self.message(), from: "no-reply@example.com", to: ["alice@example.org"]) }
        #expect(error?.kind == .timeout)
        #expect(Date().timeIntervalSince(started) < 5)
    }

    /// This machine's first IPv4 address that is not loopback, if it has one.
    static func nonLoopbackAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var host = [CChar](repeating: 0, count: 64)
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                var value = pointer.pointee.sin_addr
                _ = inet_ntop(AF_INET, &value, &host, 64)
            }
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.hasPrefix("127.") { return text }
        }
        return nil
    }
}
