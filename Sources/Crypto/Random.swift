import COpenSSL

/// Cryptographically secure randomness from OpenSSL's DRBG.
public enum Random {
    /// `count` random bytes.
    ///
    /// Traps if OpenSSL's generator fails: continuing with predictable
    /// bytes for keys, salts or tokens would be worse than crashing.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        if count == 0 { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let status = RAND_bytes(buffer.baseAddress, Int32(count))
            precondition(status == 1, "RAND_bytes failed: \(OpenSSLErrors.drain())")
            initialized = count
        }
    }

    /// A base64url token made of `bytes` random bytes (default 32 = 256 bits),
    /// suitable for bearer secrets such as authorization codes and refresh tokens.
    public static func token(bytes: Int = 32) -> String {
        precondition(bytes >= 16, "bearer secrets need at least 128 bits")
        return Base64URL.encode(Random.bytes(bytes))
    }
}
