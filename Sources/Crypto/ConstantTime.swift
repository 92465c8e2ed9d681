import COpenSSL

/// Comparisons whose running time does not depend on where inputs differ.
public enum ConstantTime {
    /// True when `a` and `b` hold the same bytes.
    ///
    /// Lengths are not secret (a length mismatch returns false at once), but
    /// content is compared with `CRYPTO_memcmp`, which always reads every byte.
    public static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        let left = Array(a)
        let right = Array(b)
        guard left.count == right.count else { return false }
        if left.isEmpty { return true }
        return left.withUnsafeBytes { l in
            right.withUnsafeBytes { r in
                CRYPTO_memcmp(l.baseAddress, r.baseAddress, l.count) == 0
            }
        }
    }
}
