import Crypto
import FoundationEssentials
import Model

/// The shape of a refresh token's value: `rt1.<grant id>.<generation>.<secret>`, the secret 256
/// bits (random for a family's first token, derived for a successor: `RefreshTokens.successor`).
///
/// The value names the token's place in its family, so the store finds it by primary key and
/// compares digests there, and a rotation writes next to its predecessor instead of into an index
/// of random digests (README "Performance", issue #18). The grant id is a random handle that
/// grants nothing without the secret. Values without this shape (tokens issued before, 43
/// base64url characters and no dot) are looked up by their digest, as they always were.
enum RefreshTokenValue {
    static let prefix = "rt1."
    /// Longest generation accepted from a presented value (a family rotated every second for 30 years stays below).
    static let maximumGenerationDigits = 10

    static func first(grantID: String) -> String { compose(grantID: grantID, generation: 0, secret: Random.token(bytes: 32)) }

    static func compose(grantID: String, generation: Int, secret: String) -> String {
        prefix + grantID + "." + String(generation) + "." + secret
    }

    /// How the store finds the presented value: its digest, and its place when it has this shape.
    static func key(for value: String) -> RefreshTokenKey {
        RefreshTokenKey(tokenHash: RefreshTokens.hash(value), position: position(in: value))
    }

    static func position(in value: String) -> RefreshTokenKey.Position? {
        guard value.hasPrefix(prefix) else { return nil }
        let parts = value.dropFirst(prefix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].utf8.allSatisfy(isBase64URL),
              (1...maximumGenerationDigits).contains(parts[1].utf8.count), parts[1].utf8.allSatisfy({ (48...57).contains($0) }),
              parts[1] == "0" || !parts[1].hasPrefix("0"), let generation = Int(parts[1]),
              !parts[2].isEmpty, parts[2].utf8.allSatisfy(isBase64URL) else { return nil }
        return RefreshTokenKey.Position(grantID: String(parts[0]), generation: generation)
    }

    static func isBase64URL(_ byte: UInt8) -> Bool {
        (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 45 || byte == 95
    }
}
