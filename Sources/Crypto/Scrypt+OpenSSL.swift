import COpenSSL

/// Raw scrypt (RFC 7914) through OpenSSL's `EVP_PBE_scrypt`.
public enum Scrypt {
    /// Derives `length` bytes. `maxMemory` is passed to OpenSSL explicitly
    /// because its 32 MiB default refuses N = 2^15, r = 8.
    public static func derive(password: [UInt8], salt: [UInt8], n: UInt64, r: UInt64, p: UInt64,
                              length: Int, maxMemory: UInt64 = 64 << 20) throws -> [UInt8] {
        guard length > 0 else { throw CryptoError(.invalidInput, detail: "scrypt output length") }
        var out = [UInt8](repeating: 0, count: length)
        // Empty arrays may have no base address; OpenSSL treats NULL as empty.
        let status = password.withUnsafeBufferPointer { pass in
            salt.withUnsafeBufferPointer { saltBuffer in
                out.withUnsafeMutableBufferPointer { key in
                    pass.baseAddress.withMemoryRebound(to: CChar.self, capacity: pass.count) { passPointer in
                        EVP_PBE_scrypt(passPointer, pass.count, saltBuffer.baseAddress, saltBuffer.count,
                                       n, r, p, maxMemory, key.baseAddress, key.count)
                    }
                }
            }
        }
        try OpenSSLErrors.check(status, .keyDerivation, "EVP_PBE_scrypt")
        return out
    }

    static func derive(password: [UInt8], salt: [UInt8], parameters: ScryptParameters,
                       length: Int) throws -> [UInt8] {
        // A little headroom over the exact requirement, never below 64 MiB.
        let memory = max(64 << 20, parameters.requiredMemory + (1 << 20))
        return try derive(password: password, salt: salt, n: UInt64(1) << UInt64(parameters.logN),
                          r: UInt64(parameters.r), p: UInt64(parameters.p), length: length, maxMemory: memory)
    }
}

private extension Optional where Wrapped == UnsafePointer<UInt8> {
    /// Rebinds an optional byte pointer to `CChar` for C `const char *` parameters.
    func withMemoryRebound<T>(to type: CChar.Type, capacity: Int, _ body: (UnsafePointer<CChar>?) -> T) -> T {
        guard let pointer = self else { return body(nil) }
        return pointer.withMemoryRebound(to: CChar.self, capacity: capacity) { body($0) }
    }
}
