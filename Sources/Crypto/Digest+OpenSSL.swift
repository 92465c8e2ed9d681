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
    /// HMAC-SHA256 contexts with their digest already set, reused: `EVP_Q_mac` fetched the MAC and
    /// the digest from the provider on every call, which cost more than the MAC over a short input.
    private static let contexts = ContextPool { EVP_MAC_CTX_free($0) }

    private static func makeContext() -> OpaquePointer {
        guard let ctx = EVP_MAC_CTX_new(Algorithms.hmac) else { fatalError("EVP_MAC_CTX_new failed: \(OpenSSLErrors.drain())") }
        let digest = UnsafeMutablePointer(mutating: ParamName.sha256)
        var params = [OSSL_PARAM_construct_utf8_string(ParamName.digest, digest, 0), OSSL_PARAM_construct_end()]
        precondition(EVP_MAC_CTX_set_params(ctx, &params) == 1, "HMAC digest: \(OpenSSLErrors.drain())")
        return ctx
    }

    static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        let ctx = contexts.take() ?? makeContext()
        defer { contexts.give(ctx) }
        // An empty array may have no storage, but OpenSSL needs a non-null key pointer.
        let keyStorage = key.isEmpty ? [0] : key
        return keyStorage.withUnsafeBufferPointer { k in
            data.withUnsafeBufferPointer { d in
                [UInt8](unsafeUninitializedCapacity: 32) { out, initialized in
                    var length = 0
                    // EVP_MAC_init with a key starts a fresh MAC on a used context.
                    let ok = EVP_MAC_init(ctx, k.baseAddress, key.count, nil) == 1
                        && (d.isEmpty || EVP_MAC_update(ctx, d.baseAddress, d.count) == 1)
                        && EVP_MAC_final(ctx, out.baseAddress, &length, 32) == 1
                    precondition(ok && length == 32, "HMAC-SHA256 failed: \(OpenSSLErrors.drain())")
                    initialized = 32
                }
            }
        }
    }
}

/// The contexts behind one `KeyedHMAC`: each was keyed once (`EVP_MAC_init` with the key), and
/// `EVP_MAC_init` without a key rewinds it to that key's inner state for the next MAC.
final class KeyedHMACContexts: Sendable {
    private let key: [UInt8]
    private let pool = ContextPool { EVP_MAC_CTX_free($0) }

    init(key: [UInt8]) { self.key = key }

    private func makeContext() -> OpaquePointer {
        guard let ctx = EVP_MAC_CTX_new(Algorithms.hmac) else { fatalError("EVP_MAC_CTX_new failed: \(OpenSSLErrors.drain())") }
        let digest = UnsafeMutablePointer(mutating: ParamName.sha256)
        var params = [OSSL_PARAM_construct_utf8_string(ParamName.digest, digest, 0), OSSL_PARAM_construct_end()]
        // An empty key still needs a non-null pointer.
        let keyed = (key.isEmpty ? [0] : key).withUnsafeBufferPointer { k in
            EVP_MAC_CTX_set_params(ctx, &params) == 1 && EVP_MAC_init(ctx, k.baseAddress, key.count, nil) == 1
        }
        precondition(keyed, "HMAC key: \(OpenSSLErrors.drain())")
        return ctx
    }

    func mac(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        let ctx = pool.take() ?? makeContext()
        defer { pool.give(ctx) }
        return [UInt8](unsafeUninitializedCapacity: 32) { out, initialized in
            var length = 0
            let ok = EVP_MAC_init(ctx, nil, 0, nil) == 1
                && (data.isEmpty || EVP_MAC_update(ctx, data.baseAddress, data.count) == 1)
                && EVP_MAC_final(ctx, out.baseAddress, &length, 32) == 1
            precondition(ok && length == 32, "HMAC-SHA256 failed: \(OpenSSLErrors.drain())")
            initialized = 32
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

    nonisolated(unsafe) static let hmac: OpaquePointer = {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else {
            fatalError("OpenSSL has no HMAC: \(OpenSSLErrors.drain())")
        }
        return mac
    }()

    nonisolated(unsafe) static let aes256gcm: OpaquePointer = {
        guard let cipher = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) else {
            fatalError("OpenSSL has no AES-256-GCM: \(OpenSSLErrors.drain())")
        }
        return cipher
    }()
}
