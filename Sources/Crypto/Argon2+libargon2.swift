import CArgon2

/// Raw Argon2id (RFC 9106) through libargon2's `argon2_ctx`.
public enum Argon2id {
    /// Derives `length` bytes. The lanes are computed one after the other on the calling thread
    /// (`threads` 1): a hash already has a core of its own (`PasswordHashingGate`), and
    /// `PasswordHashingCPU` reads the calling thread's clock. `secret` and `associatedData` are
    /// RFC 9106 §3.1's K and X, here for the RFC's test vectors.
    public static func derive(password: [UInt8], salt: [UInt8], parameters: Argon2Parameters, length: Int,
                              secret: [UInt8] = [], associatedData: [UInt8] = []) throws -> [UInt8] {
        guard length >= 4 else { throw CryptoError(.invalidInput, detail: "Argon2 output length") }
        var out = [UInt8](repeating: 0, count: length)
        // The context's inputs are `uint8_t *`, but with no flags set libargon2 only reads them.
        let status = out.withUnsafeMutableBufferPointer { out in
            password.withUnsafeBufferPointer { password in
                salt.withUnsafeBufferPointer { salt in
                    secret.withUnsafeBufferPointer { secret in
                        associatedData.withUnsafeBufferPointer { associatedData in
                            var context = argon2_context(
                                out: out.baseAddress, outlen: UInt32(out.count),
                                pwd: mutable(password), pwdlen: UInt32(password.count),
                                salt: mutable(salt), saltlen: UInt32(salt.count),
                                secret: mutable(secret), secretlen: UInt32(secret.count),
                                ad: mutable(associatedData), adlen: UInt32(associatedData.count),
                                t_cost: UInt32(parameters.iterations), m_cost: UInt32(parameters.memoryKiB),
                                lanes: UInt32(parameters.parallelism), threads: 1,
                                version: UInt32(ARGON2_VERSION_13.rawValue),
                                allocate_cbk: gh_argon2_allocate, free_cbk: gh_argon2_free,
                                flags: 0)  // ARGON2_DEFAULT_FLAGS: inputs left as they are
                            return argon2_ctx(&context, Argon2_id)
                        }
                    }
                }
            }
        }
        guard status == ARGON2_OK.rawValue else {
            let reason = argon2_error_message(status).map { String(cString: $0) } ?? "error \(status)"
            throw CryptoError(.keyDerivation, detail: "argon2_ctx: \(reason)")
        }
        return out
    }

    private static func mutable(_ buffer: UnsafeBufferPointer<UInt8>) -> UnsafeMutablePointer<UInt8>? {
        buffer.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
    }
}
