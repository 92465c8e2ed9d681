import COpenSSL

extension Digest {
    /// SHA-256 over a raw buffer; the hot path for signing and verifying.
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

extension HMAC {
    static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        // An empty array may have no storage, but OpenSSL needs a non-null key pointer.
        let keyStorage = key.isEmpty ? [0] : key
        return keyStorage.withUnsafeBytes { k in
            data.withUnsafeBytes { d in
                [UInt8](unsafeUninitializedCapacity: 32) { out, initialized in
                    var length = 0
                    let result = EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil,
                                           k.baseAddress, key.count,
                                           d.baseAddress?.assumingMemoryBound(to: UInt8.self), d.count,
                                           out.baseAddress, 32, &length)
                    precondition(result != nil && length == 32, "HMAC-SHA256 failed: \(OpenSSLErrors.drain())")
                    initialized = 32
                }
            }
        }
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
