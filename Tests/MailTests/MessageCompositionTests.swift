import Foundation
import Testing
@testable import Mail

@Suite struct MessageCompositionTests {
    static let date = Date(timeIntervalSince1970: 1_796_126_400)  // 2026-12-01 12:00:00 UTC

    static func message(subject: String = "Your code", from: String = "Gatehouse <no-reply@example.com>",
                        to: String = "alice@example.org", html: String? = "<p>Hello</p>") throws -> OutgoingMessage {
        OutgoingMessage(from: try MailAddress.parse(from), to: try MailAddress.parse(to), subject: subject,
                        text: "Hello,\nyour code is 123456.\n", html: html, date: date)
    }

    @Test func headersAreThereAndTheBytesAreCRLF() throws {
        let raw = try Self.message().composed(randomHex: "abc123")
        let text = String(decoding: raw, as: UTF8.self)
        #expect(text.hasPrefix("Date: Tue, 01 Dec 2026 12:00:00 +0000\r\n"))
        #expect(text.contains("\r\nMessage-ID: <abc123@example.com>\r\n"))
        #expect(text.contains("\r\nMIME-Version: 1.0\r\n"))
        #expect(text.contains("\r\nContent-Type: multipart/alternative;\r\n boundary=\"=_gatehouse_abc123\"\r\n"))
        let parsed = try ParsedMessage(raw)
        #expect(parsed.subject == "Your code")
        #expect(parsed.from == "Gatehouse <no-reply@example.com>")
        #expect(parsed.to == "alice@example.org")
        #expect(parsed.text == "Hello,\nyour code is 123456.\n")
        #expect(parsed.html == "<p>Hello</p>")
        #expect(parsed.defects.isEmpty)
        #expect(!parsed.hasBareLF)
        #expect(parsed.longestLine <= 78)
    }

    /// Subjects and names as a mail client must show them, through Python's parser.
    @Test(arguments: [
        ("ASCII subject", "ASCII subject"),
        ("【Gatehouse】ログイン用確認コード：123456", "【Gatehouse】ログイン用確認コード：123456"),
        ("Ünïcödé and a long tail " + String(repeating: "é", count: 80), "Ünïcödé and a long tail " + String(repeating: "é", count: 80)),
        ("looks like =?UTF-8?B?eA==?= an encoded word", "looks like =?UTF-8?B?eA==?= an encoded word"),
        ("絵文字 🔐 も", "絵文字 🔐 も"),
    ])
    func subjectsRoundTrip(subject: String, shown: String) throws {
        let raw = try Self.message(subject: subject).composed()
        let parsed = try ParsedMessage(raw)
        #expect(parsed.subject == shown)
        #expect(parsed.defects.isEmpty)
        #expect(parsed.longestLine <= 78, "folded into short lines")
        #expect(raw.allSatisfy { $0 < 0x80 }, "headers and quoted-printable bodies are 7-bit")
    }

    @Test func japaneseBodiesAndDisplayNames() throws {
        var message = try Self.message(from: "ゲートハウス <no-reply@example.com>")
        message.text = "確認コードは 123456 です。\n" + String(repeating: "長い行", count: 60) + "\n"
        message.html = "<p>確認コード</p>"
        let parsed = try ParsedMessage(message.composed())
        #expect(parsed.from == "ゲートハウス <no-reply@example.com>")
        #expect(parsed.text == message.text)
        #expect(parsed.html == "<p>確認コード</p>")
        #expect(parsed.longestLine <= 78)
    }

    @Test func textOnlyMessageIsNotMultipart() throws {
        let raw = try Self.message(html: nil).composed()
        let parsed = try ParsedMessage(raw)
        #expect(parsed.fields["content_type"] as? String == "text/plain")
        #expect(parsed.text == "Hello,\nyour code is 123456.\n")
    }

    @Test func trailingSpacesAndEqualsSignsSurviveQuotedPrintable() throws {
        var message = try Self.message(html: nil)
        message.text = "a = b  \nline with tab\t\n=3D literal\n"
        #expect(try ParsedMessage(message.composed()).text == message.text)
    }

    /// Header injection: no CR, LF or other control character reaches a header (RFC 5322 §2.2).
    @Test(arguments: ["Hi\r\nBcc: victim@example.net", "Hi\nBcc: x@y.z", "Hi\rX", "tab\tinside", "nul\u{0}"])
    func controlCharactersInTheSubjectAreRefused(subject: String) throws {
        #expect(throws: MessageError.invalidHeaderValue(name: "Subject")) { try Self.message(subject: subject).composed() }
    }

    @Test(arguments: [
        "alice@example.org\r\nBcc: x@y.z", "alice@example.org\nx", "alice@example.org, bob@example.org", "<alice@example.org>x",
        "no-at-sign", "a@b@c.d", "@example.org", "alice@", "alice@.example.org", "alice@example..org", "al ice@example.org",
        "alice@example.org.", "\"quoted\"@example.org", String(repeating: "a", count: 250) + "@b.cd",
    ])
    func malformedAddressesAreRefused(address: String) {
        #expect(throws: MessageError.self) { try MailAddress(address: address) }
    }

    @Test(arguments: ["alice@example.org", "a.b+tag@sub.example.co.jp", "x@localhost", "o'brien@example.ie"])
    func plainAddressesAreAccepted(address: String) throws {
        #expect(try MailAddress(address: address).address == address)
    }

    @Test func displayNameWithALineBreakIsRefused() {
        #expect(throws: MessageError.invalidHeaderValue(name: "display name")) {
            try MailAddress.parse("Evil\r\nBcc: x@y.z <no-reply@example.com>")
        }
    }

    @Test func fromParsing() throws {
        #expect(try MailAddress.parse("no-reply@example.com") == MailAddress(address: "no-reply@example.com"))
        #expect(try MailAddress.parse("\"Example, Inc\" <no-reply@example.com>").displayName == "Example, Inc")
        #expect(try MailAddress.parse("Example <no-reply@example.com>").domain == "example.com")
        let quoted = try ParsedMessage(Self.message(from: "\"Example, Inc\" <no-reply@example.com>").composed())
        #expect(quoted.from == "\"Example, Inc\" <no-reply@example.com>")
    }

    @Test func messageIDsDiffer() throws {
        let first = try String(decoding: Self.message().composed(), as: UTF8.self)
        let second = try String(decoding: Self.message().composed(), as: UTF8.self)
        func id(_ text: String) -> Substring? { text.split(separator: "\r\n").first { $0.hasPrefix("Message-ID:") } }
        #expect(id(first) != nil && id(first) != id(second))
    }
}
