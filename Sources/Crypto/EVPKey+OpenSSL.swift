import COpenSSL

/// Pointer-level helpers shared by `SigningKey` and `PublicKey`.
///
/// Everything here borrows an `EVP_PKEY*` owned by a `Backing`; nothing
/// frees the key it is given.
enum EVPKey {
    /// Smallest RSA modulus accepted anywhere (RFC 7518 §3.3 requires 2048).
    static let minimumRSABits = 2048
    /// Largest RSA modulus accepted, bounding verification cost of foreign keys.
    static let maximumRSABits = 8192

    /// Classifies `pkey` and extracts the public numbers, refusing key types
    /// other than plain RSA and EC on P-256.
    static func inspect(_ pkey: OpaquePointer) throws -> (SigningKey.Algorithm, PublicKey.Components, Int) {
        let bits = Int(EVP_PKEY_get_bits(pkey))
        // EVP_PKEY_is_a("RSA") is false for RSA-PSS keys, which JWS RS256 must not use.
        if EVP_PKEY_is_a(pkey, "RSA") == 1 {
            guard (minimumRSABits...maximumRSABits).contains(bits) else {
                throw CryptoError(.invalidKey, detail: "RSA modulus of \(bits) bits")
            }
            let n = try bignum(pkey, "n", padTo: nil)
            let e = try bignum(pkey, "e", padTo: nil)
            return (.rs256, .rsa(n: n, e: e), bits)
        }
        if EVP_PKEY_is_a(pkey, "EC") == 1 {
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_utf8_string_param(pkey, "group", &name, name.count, &length) == 1 else {
                throw OpenSSLErrors.error(.invalidKey, "EC key without a named group")
            }
            let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard group == "prime256v1" || group == "P-256" else {
                throw CryptoError(.invalidKey, detail: "EC group \(group)")
            }
            let x = try bignum(pkey, "qx", padTo: 32)
            let y = try bignum(pkey, "qy", padTo: 32)
            return (.es256, .p256(x: x, y: y), 256)
        }
        throw CryptoError(.invalidKey, detail: "unsupported key type")
    }

    /// Reads a BIGNUM parameter as big-endian bytes: minimal when `padTo` is nil,
    /// otherwise left-padded to exactly that many bytes.
    static func bignum(_ pkey: OpaquePointer, _ name: String, padTo width: Int?) throws -> [UInt8] {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pkey, name, &bn) == 1, let bn else {
            throw OpenSSLErrors.error(.invalidKey, "missing key parameter \(name)")
        }
        defer { BN_free(bn) }
        let size = Int((BN_num_bits(bn) + 7) / 8)
        let count = width ?? size
        guard size <= count else { throw CryptoError(.invalidKey, detail: "\(name) too large") }
        var out = [UInt8](repeating: 0, count: count)
        if count > 0 {
            // BN_bn2binpad writes exactly `count` bytes, zero-filled on the left.
            guard BN_bn2binpad(bn, &out, Int32(count)) == Int32(count) else {
                throw OpenSSLErrors.error(.invalidKey, "cannot serialise \(name)")
            }
        }
        return out
    }

    /// DER SubjectPublicKeyInfo of `pkey`.
    static func spkiDER(_ pkey: OpaquePointer) throws -> [UInt8] {
        let length = i2d_PUBKEY(pkey, nil)
        guard length > 0 else { throw OpenSSLErrors.error(.encoding, "i2d_PUBKEY") }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(pkey, &cursor)
        }
        guard written == length else { throw OpenSSLErrors.error(.encoding, "i2d_PUBKEY") }
        return out
    }

    /// Parses DER bytes with a `d2i_*` style function, insisting that every
    /// byte is consumed so trailing garbage cannot ride along.
    static func parseDER(_ der: [UInt8],
                         free: (OpaquePointer) -> Void,
                         _ parse: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?) -> OpaquePointer? {
        guard !der.isEmpty else { return nil }
        return der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let object = parse(&cursor, buffer.count) else { return nil }
            if cursor != base + buffer.count {
                free(object)
                return nil
            }
            return object
        }
    }

    /// Creates a context bound to `pkey`, or throws with the OpenSSL queue.
    static func context(_ pkey: OpaquePointer, _ kind: CryptoError.Kind) throws -> OpaquePointer {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            throw OpenSSLErrors.error(kind, "EVP_PKEY_CTX_new_from_pkey")
        }
        return ctx
    }
}
