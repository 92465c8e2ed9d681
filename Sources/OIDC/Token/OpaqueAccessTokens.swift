import Crypto
import FoundationEssentials

/// What an opaque access token carries: all `/userinfo`, revocation and introspection need, so
/// it is never stored (README "Auth0.swift compatibility": access tokens without an audience).
public struct OpaqueAccessTokenPayload: Sendable, Equatable {
    public let grantID: String
    public let userID: String
    public let clientID: String
    /// Space-separated granted scopes.
    public let scope: String
    /// Whole seconds since 1970.
    public let issuedAt: Int64
    public let expiresAt: Int64

    public init(grantID: String, userID: String, clientID: String, scope: String, issuedAt: Int64, expiresAt: Int64) {
        self.grantID = grantID
        self.userID = userID
        self.clientID = clientID
        self.scope = scope
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// Why a presented `at_…` value was refused; for logs only (the client sees `invalid_token`).
public enum OpaqueAccessTokenError: Error, Sendable, Equatable {
    /// Not `at_` followed by base64url, or shorter than the fixed header, nonce and tag.
    case malformed
    case unknownVersion(UInt8)
    /// Sealed under a key this server does not hold (another key-encryption key).
    case unknownKey
    /// The tag does not verify: a changed byte, or a forgery.
    case tampered
}

/// Seals and opens opaque access tokens: `at_` + base64url(version ‖ key id ‖ salt ‖ nonce ‖
/// AES-256-GCM ciphertext ‖ tag).
///
/// - The base key is derived from the key-encryption key with its own label (the daemon does it,
///   `Composition`), so every node sharing the KEK opens every other node's tokens.
/// - Each token is sealed under its own key, HMAC-SHA256(base key, 16-byte random salt), with a
///   random 96-bit nonce: no (key, nonce) pair repeats however many tokens are issued, which a
///   single GCM key with random nonces could only promise for about 2^32 of them.
/// - The header (version, key id, salt) is the associated data, so none of it can be changed.
/// - The key id is 4 bytes of HMAC(base key, label): it names the key without revealing it, so a
///   token from another key is refused without trying to decrypt it.
/// - `keys[0]` seals; every key opens, so a future key change can keep the previous key for one
///   access-token lifetime.
public struct OpaqueAccessTokens: Sendable {
    public static let prefix = "at_"
    static let version: UInt8 = 1
    static let saltSize = 16
    static let keyIDSize = 4
    static let headerSize = 1 + keyIDSize + saltSize
    /// Far above any real token (the payload's strings are ids and a scope list), so a huge value
    /// is refused before it is decoded.
    public static let maximumLength = 4_096
    static let associatedDataLabel = Array("gatehouse opaque access token".utf8)

    private struct Key: Sendable {
        let id: [UInt8]
        /// The base key, which derives each token's AES key from its salt (HMAC-SHA256 of the salt).
        let base: KeyedHMAC
    }
    private let keys: [Key]

    /// - Parameter keys: 32-byte base keys; the first seals. At least one.
    public init(keys: [[UInt8]]) {
        precondition(!keys.isEmpty && keys.allSatisfy { $0.count == AESGCM.keySize }, "opaque access token keys must have 32 bytes")
        self.keys = keys.map { Key(id: Array(HMAC.sha256(key: $0, data: Array("key id".utf8)).prefix(Self.keyIDSize)), base: KeyedHMAC(key: $0)) }
    }

    public init(key: [UInt8]) { self.init(keys: [key]) }

    /// Whether `token` has the opaque shape's prefix (it may still fail to open).
    public static func looksOpaque(_ token: String) -> Bool { token.utf8.starts(with: prefix.utf8) }

    public func seal(_ payload: OpaqueAccessTokenPayload) throws -> String {
        let key = keys[0]
        let header = [Self.version] + key.id + Random.bytes(Self.saltSize)
        let box = try AESGCM.seal(Self.encode(payload), key: key.base.sha256(header[(1 + Self.keyIDSize)...]),
                                  associatedData: Self.associatedDataLabel + header)
        return Self.prefix + Base64URL.encode(header + box)
    }

    public func open(_ token: String) throws(OpaqueAccessTokenError) -> OpaqueAccessTokenPayload {
        guard Self.looksOpaque(token), token.utf8.count <= Self.maximumLength,
              let bytes = try? Base64URL.decode(token.dropFirst(Self.prefix.count)),
              bytes.count >= Self.headerSize + AESGCM.nonceSize + AESGCM.tagSize else { throw .malformed }
        guard bytes[0] == Self.version else { throw .unknownVersion(bytes[0]) }
        let keyID = bytes[1...Self.keyIDSize]
        guard let key = keys.first(where: { ConstantTime.equals($0.id, keyID) }) else { throw .unknownKey }
        let header = Array(bytes[..<Self.headerSize])
        guard let plain = try? AESGCM.open(bytes[Self.headerSize...], key: key.base.sha256(header[(1 + Self.keyIDSize)...]),
                                           associatedData: Self.associatedDataLabel + header),
              let payload = Self.decode(plain) else { throw .tampered }
        return payload
    }

    // Payload: issued-at and expiry (8 bytes each, big-endian), then grant id, user id, client id
    // and scope, each a 2-byte big-endian length and UTF-8 bytes.

    static func encode(_ payload: OpaqueAccessTokenPayload) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 + 8 + payload.grantID.utf8.count + payload.userID.utf8.count
                              + payload.clientID.utf8.count + payload.scope.utf8.count)
        for value in [payload.issuedAt, payload.expiresAt] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> Int64(shift))) }
        }
        for text in [payload.grantID, payload.userID, payload.clientID, payload.scope] {
            let utf8 = Array(text.utf8.prefix(Int(UInt16.max)))
            bytes.append(UInt8(utf8.count >> 8))
            bytes.append(UInt8(utf8.count & 0xFF))
            bytes += utf8
        }
        return bytes
    }

    static func decode(_ bytes: [UInt8]) -> OpaqueAccessTokenPayload? {
        var offset = 0
        func integer() -> Int64? {
            guard offset + 8 <= bytes.count else { return nil }
            defer { offset += 8 }
            return bytes[offset..<(offset + 8)].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        }
        func text() -> String? {
            guard offset + 2 <= bytes.count else { return nil }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            offset += 2
            guard offset + length <= bytes.count else { return nil }
            defer { offset += length }
            return String(validating: bytes[offset..<(offset + length)], as: UTF8.self)
        }
        guard let issuedAt = integer(), let expiresAt = integer(), let grantID = text(), let userID = text(),
              let clientID = text(), let scope = text(), offset == bytes.count else { return nil }
        return OpaqueAccessTokenPayload(grantID: grantID, userID: userID, clientID: clientID, scope: scope,
                                        issuedAt: issuedAt, expiresAt: expiresAt)
    }
}
