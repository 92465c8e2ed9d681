/// Conversion between JOSE's raw ECDSA form (`r || s`, fixed width) and the
/// DER `ECDSA-Sig-Value` that OpenSSL produces and consumes.
///
/// Both directions are written in Swift: the structure is two small
/// INTEGERs, and avoiding ECDSA_SIG/BIGNUM allocations keeps the hot
/// paths short.
enum ECDSASignature {
    /// Width of each P-256 scalar.
    static let scalarBytes = 32

    /// DER → raw 64 bytes; each half is left-padded because r or s is
    /// shorter than 32 bytes roughly once in 128 signatures.
    ///
    /// Parsed in Swift rather than with d2i_ECDSA_SIG: the input is OpenSSL's
    /// own signing output, and skipping two BIGNUM allocations is measurable
    /// on the ES256 hot path. The parser is still strict (minimal lengths,
    /// no trailing bytes).
    static func raw(fromDER der: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 2 * scalarBytes)
        // SEQUENCE with a short-form length: P-256 signatures are at most 72 bytes.
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2, der[1] < 0x80 else {
            throw CryptoError(.signing, detail: "unexpected ECDSA DER framing")
        }
        var offset = 2
        for half in 0..<2 {
            guard offset + 2 <= der.count, der[offset] == 0x02 else {
                throw CryptoError(.signing, detail: "expected INTEGER in ECDSA signature")
            }
            let length = Int(der[offset + 1])
            offset += 2
            guard length >= 1, length <= scalarBytes + 1, offset + length <= der.count else {
                throw CryptoError(.signing, detail: "bad INTEGER length in ECDSA signature")
            }
            var value = der[offset..<(offset + length)]
            offset += length
            // DER adds one zero byte when the top bit is set; drop it (and only it).
            if value.count == scalarBytes + 1 {
                guard value.first == 0 else { throw CryptoError(.signing, detail: "ECDSA scalar too large") }
                value = value.dropFirst()
            }
            let start = half * scalarBytes + (scalarBytes - value.count)
            out.replaceSubrange(start..<(start + value.count), with: value)
        }
        guard offset == der.count else { throw CryptoError(.signing, detail: "trailing bytes in ECDSA signature") }
        return out
    }

    /// Raw 64 bytes → DER, or nil when the input is not exactly 64 bytes.
    ///
    /// Each half becomes a minimal DER INTEGER: leading zeros dropped, one
    /// zero prepended when the top bit is set so the value stays positive.
    /// Out-of-range values (zero, ≥ n) are left for OpenSSL to reject.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * scalarBytes else { return nil }
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[0..<scalarBytes]) + integer(raw[scalarBytes...])
        // At most 2 × 35 = 70 bytes, so the short length form always applies.
        return [0x30, UInt8(body.count)] + body
    }
}
