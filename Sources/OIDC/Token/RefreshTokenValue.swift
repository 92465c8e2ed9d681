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
        guard value.hasPrefix(familyPrefix) else { return nil }
        guard let (position, last) = parts(value.dropFirst(familyPrefix.count)), last.utf8.count == RefreshFamilyMAC.encodedLength,
              let mac = try? Base64URL.decode(last), mac.count == RefreshFamilyMAC.length else { return nil }
        return (position, mac)
    }

    static func position(in value: String) -> RefreshTokenKey.Position? {
        guard value.hasPrefix(prefix) else { return nil }
        return parts(value.dropFirst(prefix.count))?.position
    }

    /// `<grant id>.<generation>.<base64url>` with a canonical decimal generation.
    private static func parts(_ rest: Substring) -> (position: RefreshTokenKey.Position, last: Substring)? {
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].utf8.count <= maximumGrantIDLength, parts[0].utf8.allSatisfy(isBase64URL),
              (1...maximumGenerationDigits).contains(parts[1].utf8.count), parts[1].utf8.allSatisfy({ (48...57).contains($0) }),
              parts[1] == "0" || !parts[1].hasPrefix("0"), let generation = Int(parts[1]),
              !parts[2].isEmpty, parts[2].utf8.allSatisfy(isBase64URL) else { return nil }
        return (RefreshTokenKey.Position(grantID: String(parts[0]), generation: generation), parts[2])
    }

    static func isBase64URL(_ byte: UInt8) -> Bool {
        (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 45 || byte == 95
    }
}
