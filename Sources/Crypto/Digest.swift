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
