import Crypto
import FoundationEssentials
import Model

/// The MAC of an `rt2` refresh token (`RefreshTokenValue`): HMAC-SHA-256 over the grant id, the
/// generation and the family's random salt, under a key derived from the refresh-token server key
/// (itself derived from the key-encryption key). 256 bits, never stored: a token is checked by
/// recomputing it, in constant time, and a successor (or a retry's same successor, RFC 9700
/// §4.14.2) is recomputed from generation + 1. The salt makes two families' values unrelated even
/// if a grant id were ever reused.
public struct RefreshFamilyMAC: Sendable {
    static let length = 32
    static let encodedLength = 43
    static let saltLength = 16
    static let label = Array("gatehouse refresh family mac v2".utf8)
    let key: KeyedHMAC

    /// - Parameter successorKey: the refresh-token server key (`RefreshTokens`), ≥ 32 bytes.
    public init(successorKey: [UInt8]) {
        key = KeyedHMAC(key: HMAC.sha256(key: successorKey, data: Self.label))
    }

    /// A new family's salt.
    public static func newSalt() -> [UInt8] { Random.bytes(saltLength) }

    func mac(grantID: String, generation: Int, salt: [UInt8]) -> [UInt8] {
        var data = Array(grantID.utf8)
        data.reserveCapacity(data.count + 9 + salt.count)
        data.append(0)
        withUnsafeBytes(of: UInt64(generation).bigEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: salt)
        return key.sha256(data)
    }

    /// The value of `token`, a token of a one-row family (with its generation and salt).
    public func value(of token: RefreshToken) -> String? {
        guard let salt = token.familySalt, let generation = token.generation else { return nil }
        return RefreshTokenValue.familyPrefix + token.grantID + "." + String(generation) + "."
            + Base64URL.encode(mac(grantID: token.grantID, generation: generation, salt: salt))
    }

    /// Whether `value` is the `rt2` value of `token` (as the store read it at the value's place).
    public func verifies(_ value: String, token: RefreshToken) -> Bool {
        guard let parts = RefreshTokenValue.familyParts(of: value), let salt = token.familySalt,
              parts.position.grantID == token.grantID, parts.position.generation == token.generation else { return false }
        return ConstantTime.equals(parts.mac, mac(grantID: token.grantID, generation: parts.position.generation, salt: salt))
    }

    /// The token the store found for `value` if `value` is genuinely it: `rt2` values must carry
    /// its MAC; older values were already matched by digest in the store.
    func checked(_ value: String, key: RefreshTokenKey, found token: RefreshToken?) -> RefreshToken? {
        guard let token else { return nil }
        guard key.inFamilyRow else { return token }
        return verifies(value, token: token) ? token : nil
    }
}
