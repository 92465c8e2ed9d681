import FoundationEssentials

/// One message ready to compose: sender, recipient, subject and a text part with an optional
/// HTML alternative.
public struct OutgoingMessage: Sendable, Equatable {
    public var from: MailAddress
    public var to: MailAddress
    public var subject: String
    public var text: String
    public var html: String?
    public var date: Date

    public init(from: MailAddress, to: MailAddress, subject: String, text: String, html: String? = nil, date: Date) {
        self.from = from
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.date = date
    }

    /// The RFC 5322 message: CRLF line endings, MIME (RFC 2045/2046) with UTF-8 parts in
    /// quoted-printable, `multipart/alternative` when there is HTML (the plain part first, §5.1.4:
    /// the last part is the preferred one). Refuses a control character in any header value.
    ///
    /// - Parameter randomHex: the unique part of Message-ID and the boundary (a parameter for tests).
    public func composed(randomHex: String = MessageIdentity.randomHex()) throws(MessageError) -> [UInt8] {
        let subject = try HeaderEncoding.checked(self.subject, name: "Subject")
        var headers = [
            ("Date", MailDate.format(date)),
            ("From", from.headerValue),
            ("To", to.headerValue),
            ("Subject", HeaderEncoding.unstructured(subject)),
            ("Message-ID", "<\(randomHex)@\(from.domain)>"),
            ("MIME-Version", "1.0"),
            // RFC 3834 §5: an automatic message; vacation responders should not answer it.
            ("Auto-Submitted", "auto-generated"),
        ]
        var body = ""
        if let html {
            let boundary = "=_gatehouse_\(randomHex)"  // "=_" cannot occur in quoted-printable output.
            headers.append(("Content-Type", "multipart/alternative;\r\n boundary=\"\(boundary)\""))
            body = "--\(boundary)\r\n" + Self.part("text/plain", text) + "\r\n--\(boundary)\r\n" + Self.part("text/html", html)
                + "\r\n--\(boundary)--\r\n"
        } else {
            headers.append(("Content-Type", "text/plain; charset=UTF-8"))
            headers.append(("Content-Transfer-Encoding", "quoted-printable"))
            body = QuotedPrintable.encode(text)
            if !body.hasSuffix("\r\n") { body += "\r\n" }
        }
        for (name, value) in headers { _ = try HeaderEncoding.checked(value.replacing("\r\n ", with: " "), name: name) }
        let head = headers.map { "\($0.0): \($0.1)\r\n" }.joined()
        return Array((head + "\r\n" + body).utf8)
    }

    private static func part(_ type: String, _ content: String) -> String {
        "Content-Type: \(type); charset=UTF-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" + QuotedPrintable.encode(content)
    }
}

/// Random identifiers for Message-ID (RFC 5322 §3.6.4: globally unique) and MIME boundaries.
public enum MessageIdentity {
    public static func randomHex(bytes: Int = 16) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return String((0..<bytes * 2).map { _ in digits[Int(generator.next() % 16)] })
    }
}
