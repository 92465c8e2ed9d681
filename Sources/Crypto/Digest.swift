import COpenSSL

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

    /// SHA-256 over a raw buffer; the hot path for signing.
    static func sha256(raw: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { out, initialized in
            var length: UInt32 = 0
            // EVP_Digest with a pre-fetched EVP_MD avoids a provider lookup per call.
            let status = EVP_Digest(raw.baseAddress, raw.count, out.baseAddress, &length, Algorithms.sha256, nil)
            precondition(status == 1 && length == 32, "SHA-256 failed: \(OpenSSLErrors.drain())")
            initialized = 32
        }
    }
}

/// HMAC message authentication.
public enum HMAC {
    /// HMAC-SHA256 of `data` under `key` (32 bytes).
    public static func sha256(key: some Collection<UInt8>, data: some Collection<UInt8>) -> [UInt8] {
        let keyBytes = Array(key)
        let dataBytes = Array(data)
        // An empty array may have no storage, but OpenSSL needs a non-null key pointer.
        let keyStorage = keyBytes.isEmpty ? [0] : keyBytes
        return keyStorage.withUnsafeBytes { k in
            dataBytes.withUnsafeBytes { d in
                [UInt8](unsafeUninitializedCapacity: 32) { out, initialized in
                    var length = 0
                    let result = EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil,
                                           k.baseAddress, keyBytes.count,
                                           d.baseAddress?.assumingMemoryBound(to: UInt8.self), d.count,
                                           out.baseAddress, 32, &length)
                    precondition(result != nil && length == 32, "HMAC-SHA256 failed: \(OpenSSLErrors.drain())")
                    initialized = 32
                }
            }
        }
    }
}

/// Lower-case hexadecimal encoding.
enum Hex {
    static func encode(_ bytes: [UInt8]) -> String {
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

/// Algorithm objects fetched once from the default provider.
///
/// Explicit fetching is OpenSSL 3's recommended pattern: the legacy
/// `EVP_sha256()` handles trigger an implicit fetch on every use.
enum Algorithms {
    nonisolated(unsafe) static let sha256: OpaquePointer = {
        guard let md = EVP_MD_fetch(nil, "SHA256", nil) else {
            fatalError("OpenSSL has no SHA256: \(OpenSSLErrors.drain())")
        }
        return md
    }()

    nonisolated(unsafe) static let aes256gcm: OpaquePointer = {
        guard let cipher = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) else {
            fatalError("OpenSSL has no AES-256-GCM: \(OpenSSLErrors.drain())")
        }
        return cipher
    }()
}
