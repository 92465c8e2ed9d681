/// SHA-256 digests.
public enum Digest {
    /// SHA-256 of `data` (32 bytes).
    public static func sha256(_ data: some Collection<UInt8>) -> [UInt8] {
        let bytes = Array(data)
        return bytes.withUnsafeBytes { sha256(raw: $0) }
    }

    /// Lower-case hexadecimal SHA-256 of `data`.
    public static func sha256Hex(_ data: some Collection<UInt8>) -> String {
        Hex.encode(sha256(data))
    }
}

/// HMAC message authentication.
public enum HMAC {
    /// HMAC-SHA256 of `data` under `key` (32 bytes).
    public static func sha256(key: some Collection<UInt8>, data: some Collection<UInt8>) -> [UInt8] {
        hmacSHA256(key: Array(key), data: Array(data))
    }
}

/// Lower-case hexadecimal encoding.
public enum Hex {
    public static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// HMAC-SHA256 under one fixed key, for the server keys the token paths MAC with on every request.
///
/// `HMAC.sha256` keys a context on each call: two SHA-256 blocks of key pads (RFC 2104 §2) and
/// OpenSSL's key setup, which cost more than the MAC over a short input. A `KeyedHMAC` keeps
/// contexts that already hold the key and only rewinds one per call.
public struct KeyedHMAC: Sendable {
    let contexts: KeyedHMACContexts

    public init(key: [UInt8]) { contexts = KeyedHMACContexts(key: key) }

    /// HMAC-SHA256 of `data`: the same bytes as `HMAC.sha256(key:data:)` with this key.
    public func sha256(_ data: some Collection<UInt8>) -> [UInt8] {
        let bytes = Array(data)
        return bytes.withUnsafeBytes { contexts.mac($0) }
    }
}
