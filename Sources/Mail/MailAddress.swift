/// A mailbox: an address (`local@domain`) and an optional display name (RFC 5322 §3.4).
///
/// Deliberately narrower than the RFC: no comments, no quoted local parts, no CR, LF, spaces,
/// angle brackets or commas in the address, so a value taken from a request or the
/// configuration can never add a header or a second recipient.
public struct MailAddress: Sendable, Equatable, CustomStringConvertible {
    public let address: String
    public let displayName: String?

    public init(address: String, displayName: String? = nil) throws(MessageError) {
        guard Self.isValidAddress(address) else { throw .invalidAddress(address) }
        if let displayName, displayName.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw .invalidHeaderValue(name: "display name")
        }
        self.address = address
        self.displayName = displayName.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Parses `addr@example.com` or `Name <addr@example.com>` (the `email_from` setting).
    public static func parse(_ text: String) throws(MessageError) -> MailAddress {
        let trimmed = text.trimmingSpaces()
        guard trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") else {
            return try MailAddress(address: trimmed)
        }
        let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        var name = String(trimmed[..<open]).trimmingSpaces()
        if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") { name = String(name.dropFirst().dropLast()) }
        return try MailAddress(address: address, displayName: name.isEmpty ? nil : name)
    }

    /// The domain part, for Message-ID and for logs that must not name the person.
    public var domain: String { String(address[address.index(after: address.lastIndex(of: "@")!)...]) }

    /// One `@`, a non-empty local part and a dotted domain of printable ASCII without the
    /// characters that have meaning in a header (`<>()[],;:\"` and spaces), at most 254 bytes (RFC 5321 §4.5.3.1).
    public static func isValidAddress(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (3...254).contains(bytes.count), let at = bytes.lastIndex(of: UInt8(ascii: "@")),
              at > 0, at < bytes.count - 1, bytes.firstIndex(of: UInt8(ascii: "@")) == at else { return false }
        let forbidden = Set("<>()[],;:\\\" ".utf8)
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !forbidden.contains($0) }) else { return false }
        let domain = bytes[(at + 1)...]
        return !domain.starts(with: [UInt8(ascii: ".")]) && domain.last != UInt8(ascii: ".")
            && !domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).contains { $0.isEmpty }
    }

    /// The header form: the address, or an encoded display name and the address in angle brackets.
    var headerValue: String {
        guard let displayName else { return address }
        return HeaderEncoding.phrase(displayName) + " <" + address + ">"
    }

    public var description: String { headerValue }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while slice.first?.isWhitespace == true { slice.removeFirst() }
        while slice.last?.isWhitespace == true { slice.removeLast() }
        return String(slice)
    }
}
