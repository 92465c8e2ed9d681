import COpenSSL

extension SigningKey {
    /// Owns the private `EVP_PKEY*`. The key is never mutated after creation,
    /// and OpenSSL 3 allows concurrent signing with one `EVP_PKEY` as long as
    /// every operation gets its own `EVP_PKEY_CTX` (see `sign`).
    final class Backing: @unchecked Sendable {
        let pkey: OpaquePointer
        /// Maximum signature size, cached to size output buffers once.
        let maxSignatureSize: Int
        /// Initialised signing contexts for reuse across calls.
        let contexts = ContextPool { EVP_PKEY_CTX_free($0) }

        init(taking pkey: OpaquePointer) {
            self.pkey = pkey
            self.maxSignatureSize = Int(EVP_PKEY_get_size(pkey))
        }

        // Pooled contexts hold their own reference to the key
        // (EVP_PKEY_CTX_new_from_pkey up-refs it), so release order is irrelevant.
        deinit { EVP_PKEY_free(pkey) }

        static func generate(_ algorithm: Algorithm, rsaBits: Int) throws -> Backing {
            let name = algorithm == .rs256 ? "RSA" : "EC"
            guard let ctx = EVP_PKEY_CTX_new_from_name(nil, name, nil) else {
                throw OpenSSLErrors.error(.keyGeneration, "EVP_PKEY_CTX_new_from_name")
            }
            defer { EVP_PKEY_CTX_free(ctx) }
            try OpenSSLErrors.check(EVP_PKEY_keygen_init(ctx), .keyGeneration, "EVP_PKEY_keygen_init")
            switch algorithm {
            case .rs256:
                // The public exponent defaults to 65537; only the size is set.
                var bits = UInt32(rsaBits)
                let status = withUnsafeMutablePointer(to: &bits) { pointer -> Int32 in
                    var params = [OSSL_PARAM_construct_uint(ParamName.bits, pointer), OSSL_PARAM_construct_end()]
                    return EVP_PKEY_CTX_set_params(ctx, &params)
                }
                try OpenSSLErrors.check(status, .keyGeneration, "set RSA bits")
            case .es256:
                try OpenSSLErrors.check(EVP_PKEY_CTX_set_group_name(ctx, "P-256"), .keyGeneration, "set group")
            }
            var pkey: OpaquePointer?
            try OpenSSLErrors.check(EVP_PKEY_keygen(ctx, &pkey), .keyGeneration, "EVP_PKEY_keygen")
            guard let pkey else { throw OpenSSLErrors.error(.keyGeneration, "EVP_PKEY_keygen returned no key") }
            return Backing(taking: pkey)
        }

        convenience init(pkcs8DER der: [UInt8]) throws {
            guard let info = EVPKey.parseDER(der, free: { PKCS8_PRIV_KEY_INFO_free($0) }, {
                d2i_PKCS8_PRIV_KEY_INFO(nil, $0, $1)
            }) else {
                throw OpenSSLErrors.error(.invalidKey, "not a PKCS#8 PrivateKeyInfo")
            }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            guard let pkey = EVP_PKCS82PKEY(info) else {
                throw OpenSSLErrors.error(.invalidKey, "EVP_PKCS82PKEY")
            }
            self.init(taking: pkey)
        }

        func pkcs8DER() throws -> [UInt8] {
            guard let info = EVP_PKEY2PKCS8(pkey) else { throw OpenSSLErrors.error(.encoding, "EVP_PKEY2PKCS8") }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            let length = i2d_PKCS8_PRIV_KEY_INFO(info, nil)
            guard length > 0 else { throw OpenSSLErrors.error(.encoding, "i2d_PKCS8_PRIV_KEY_INFO") }
            var out = [UInt8](repeating: 0, count: Int(length))
            let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var cursor = buffer.baseAddress
                return i2d_PKCS8_PRIV_KEY_INFO(info, &cursor)
            }
            guard written == length else { throw OpenSSLErrors.error(.encoding, "i2d_PKCS8_PRIV_KEY_INFO") }
            return out
        }

        /// Hashes then signs the digest with `EVP_PKEY_sign`.
        ///
        /// Hashing separately (instead of EVP_DigestSign) skips an
        /// EVP_MD_CTX allocation and digest fetch per call; the signature
        /// bytes are identical because PKCS#1 v1.5 and ECDSA sign the digest.
        func sign(raw message: UnsafeRawBufferPointer, algorithm: Algorithm) throws -> [UInt8] {
            let digest = Digest.sha256(raw: message)
            let ctx = try contexts.take() ?? makeSigningContext()
            var length = maxSignatureSize
            var signature = [UInt8](repeating: 0, count: length)
            let status = signature.withUnsafeMutableBufferPointer { out in
                EVP_PKEY_sign(ctx, out.baseAddress, &length, digest, digest.count)
            }
            guard status == 1 else {
                // A context that failed mid-operation is not trusted again.
                EVP_PKEY_CTX_free(ctx)
                throw OpenSSLErrors.error(.signing, "EVP_PKEY_sign")
            }
            contexts.give(ctx)
            signature.removeLast(signature.count - length)
            switch algorithm {
            case .rs256: return signature
            case .es256: return try ECDSASignature.raw(fromDER: signature)
            }
        }

        /// A context bound to this key, initialised for SHA-256 signing.
        private func makeSigningContext() throws -> OpaquePointer {
            let ctx = try EVPKey.context(pkey, .signing)
            do {
                try OpenSSLErrors.check(EVP_PKEY_sign_init(ctx), .signing, "EVP_PKEY_sign_init")
                // For RSA this selects PKCS#1 v1.5 DigestInfo for SHA-256 (the default padding).
                try OpenSSLErrors.check(EVP_PKEY_CTX_set_signature_md(ctx, Algorithms.sha256), .signing, "set md")
            } catch {
                EVP_PKEY_CTX_free(ctx)
                throw error
            }
            return ctx
        }
    }

    /// Wraps a backing after checking it is a supported key type.
    convenience init(backing: Backing) throws {
        let (algorithm, _, _) = try EVPKey.inspect(backing.pkey)
        // The public half is re-parsed from SPKI so it can never carry private material.
        let publicKey = try PublicKey(spkiDER: EVPKey.spkiDER(backing.pkey))
        self.init(backing: backing, algorithm: algorithm, publicKey: publicKey)
    }
}
