import COpenSSL

/// Conversion between JOSE's raw ECDSA form (`r || s`, fixed width) and the
/// DER `ECDSA-Sig-Value` that OpenSSL produces and consumes.
enum ECDSASignature {
    /// Width of each P-256 scalar.
    static let scalarBytes = 32

    /// DER → raw 64 bytes; each half is left-padded because r or s is
    /// shorter than 32 bytes roughly once in 128 signatures.
    static func raw(fromDER der: [UInt8]) throws -> [UInt8] {
        guard let sig = EVPKey.parseDER(der, free: { ECDSA_SIG_free($0) }, { d2i_ECDSA_SIG(nil, $0, $1) }) else {
            throw OpenSSLErrors.error(.signing, "d2i_ECDSA_SIG")
        }
        defer { ECDSA_SIG_free(sig) }
        var out = [UInt8](repeating: 0, count: 2 * scalarBytes)
        let ok = out.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress,
                  let r = ECDSA_SIG_get0_r(sig), let s = ECDSA_SIG_get0_s(sig) else { return false }
            return BN_bn2binpad(r, base, Int32(scalarBytes)) == Int32(scalarBytes)
                && BN_bn2binpad(s, base + scalarBytes, Int32(scalarBytes)) == Int32(scalarBytes)
        }
        guard ok else { throw OpenSSLErrors.error(.signing, "ECDSA scalar too large") }
        return out
    }

    /// Raw 64 bytes → DER, or nil when the input is not exactly 64 bytes.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * scalarBytes else { return nil }
        return raw.withUnsafeBufferPointer { buffer -> [UInt8]? in
            guard let base = buffer.baseAddress,
                  let r = BN_bin2bn(base, Int32(scalarBytes), nil) else { return nil }
            guard let s = BN_bin2bn(base + scalarBytes, Int32(scalarBytes), nil) else {
                BN_free(r)
                return nil
            }
            guard let sig = ECDSA_SIG_new() else {
                BN_free(r); BN_free(s)
                return nil
            }
            defer { ECDSA_SIG_free(sig) }
            // On success ECDSA_SIG_set0 takes ownership of r and s.
            guard ECDSA_SIG_set0(sig, r, s) == 1 else {
                BN_free(r); BN_free(s)
                return nil
            }
            let length = i2d_ECDSA_SIG(sig, nil)
            guard length > 0 else { return nil }
            var out = [UInt8](repeating: 0, count: Int(length))
            let written = out.withUnsafeMutableBufferPointer { outBuffer -> Int32 in
                var cursor = outBuffer.baseAddress
                return i2d_ECDSA_SIG(sig, &cursor)
            }
            return written == length ? out : nil
        }
    }
}
