import Crypto
import FoundationEssentials
import Model

/// The shapes of a refresh token's value.
///
/// - `rt2.<grant id>.<generation>.<mac>`, issued since migration 0017: the MAC (`RefreshFamilyMAC`)
///   proves the value is ours; the family is one row, found by the grant id (issue #18).
/// - `rt1.<grant id>.<generation>.<secret>` (migration 0015 to 0017): found by primary key, its
///   digest compared there.
/// - 43 base64url characters and no dot (before): found by its digest.
///
/// The older two keep working until they rotate, into an `rt2` family. The grant id is a random
/// handle that grants nothing without the MAC or secret.
enum RefreshTokenValue {
    static let prefix = "rt1."
    static let familyPrefix = "rt2."
    /// Longest generation accepted from a presented value (a family rotated every second for 30 years stays below).
    static let maximumGenerationDigits = 10
    /// Longest grant id accepted from a presented value (ours are 22 or 43 characters).
    static let maximumGrantIDLength = 64

    static func compose(grantID: String, generation: Int, secret: String) -> String {
        prefix + grantID + "." + String(generation) + "." + secret
    }

    /// How the store finds the presented value: at its family row, at its place, or by its digest.
    static func key(for value: String) -> RefreshTokenKey {
        if let family = familyParts(of: value) {
            return .family(grantID: family.position.grantID, generation: family.position.generation)
        }
        return RefreshTokenKey(tokenHash: RefreshTokens.hash(value), position: position(in: value))
    }

    /// An `rt2` value's family, generation and MAC; nil for any other shape.
    static func familyParts(of value: String) -> (position: RefreshTokenKey.Position, mac: [UInt8])? {
        withBytes(of: value) { bytes in
            guard let rest = remainder(of: bytes, after: familyPrefix), let (position, last) = parts(rest),
                  last.count == RefreshFamilyMAC.encodedLength,
                  let mac = try? Base64URL.decode(String(decoding: last, as: UTF8.self)), mac.count == RefreshFamilyMAC.length else { return nil }
            return (position, mac)
        }
    }

    static func position(in value: String) -> RefreshTokenKey.Position? {
        withBytes(of: value) { bytes in
            guard let rest = remainder(of: bytes, after: prefix) else { return nil }
            return parts(rest)?.position
        }
    }

    /// Reads `value` as one buffer of UTF-8 (a native string's own storage): a refresh parses its
    /// token three times, and `UTF8View` indices showed in profiles.
    private static func withBytes<T>(of value: String, _ body: (Slice<UnsafeBufferPointer<UInt8>>) -> T) -> T {
        if let result = value.utf8.withContiguousStorageIfAvailable({ body($0[...]) }) { return result }
        return Array(value.utf8).withUnsafeBufferPointer { body($0[...]) }
    }

    /// What follows `prefix` in `bytes`, if `bytes` starts with it.
    private static func remainder(of bytes: Slice<UnsafeBufferPointer<UInt8>>,
                                  after prefix: String) -> Slice<UnsafeBufferPointer<UInt8>>? {
        guard bytes.starts(with: prefix.utf8) else { return nil }
        return bytes.dropFirst(prefix.utf8.count)
    }

    /// `<grant id>.<generation>.<base64url>` with a canonical decimal generation. Read as bytes: the
    /// shape is ASCII, and splitting the text would walk grapheme clusters three times per refresh.
    /// A fourth part fails the last one's base64url check (a dot is not base64url).
    private static func parts(_ rest: Slice<UnsafeBufferPointer<UInt8>>)
        -> (position: RefreshTokenKey.Position, last: Slice<UnsafeBufferPointer<UInt8>>)? {
        let dot = UInt8(ascii: ".")
        guard let firstDot = rest.firstIndex(of: dot) else { return nil }
        let digitsStart = firstDot + 1
        guard let secondDot = rest[digitsStart...].firstIndex(of: dot) else { return nil }
        let grant = rest[..<firstDot], digits = rest[digitsStart..<secondDot], last = rest[(secondDot + 1)...]
        guard !grant.isEmpty, grant.count <= maximumGrantIDLength, grant.allSatisfy(isBase64URL),
              (1...maximumGenerationDigits).contains(digits.count), digits.allSatisfy({ (48...57).contains($0) }),
              digits.count == 1 || digits.first != UInt8(ascii: "0"),
              !last.isEmpty, last.allSatisfy(isBase64URL) else { return nil }
        let generation = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (RefreshTokenKey.Position(grantID: String(decoding: grant, as: UTF8.self), generation: generation), last)
    }

    static func isBase64URL(_ byte: UInt8) -> Bool {
        (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 45 || byte == 95
    }
}
