import COpenSSL

extension PublicKey {
    /// Owns a public-only `EVP_PKEY*`, immutable after construction.
    final class Backing: @unchecked Sendable {
        let pkey: OpaquePointer
        /// Initialised verification contexts for reuse across calls.
        let contexts = ContextPool { EVP_PKEY_CTX_free($0) }

        init(taking pkey: OpaquePointer) { self.pkey = pkey }

        deinit { EVP_PKEY_free(pkey) }

        convenience init(spkiDER der: [UInt8]) throws {
            guard let pkey = EVPKey.parseDER(der, free: { EVP_PKEY_free($0) }, { d2i_PUBKEY(nil, $0, $1) }) else {
                throw OpenSSLErrors.error(.invalidKey, "not a SubjectPublicKeyInfo")
            }
            self.init(taking: pkey)
        }

        convenience init(rsaModulus n: [UInt8], exponent e: [UInt8]) throws {
            guard !n.isEmpty, !e.isEmpty, e.count <= 8 else {
                throw CryptoError(.invalidKey, detail: "bad RSA component lengths")
            }
            try self.init(type: "RSA") { builder in
                try builder.pushBignum(ParamName.n, n)
                try builder.pushBignum(ParamName.e, e)
            }
        }

        convenience init(p256X x: [UInt8], y: [UInt8]) throws {
            guard x.count == 32, y.count == 32 else {
                throw CryptoError(.invalidKey, detail: "P-256 coordinates must be 32 bytes")
            }
            try self.init(type: "EC") { builder in
                try builder.pushUTF8(ParamName.group, "P-256")
                // Uncompressed SEC1 point: 0x04 || x || y.
                try builder.pushOctets(ParamName.pub, [0x04] + x + y)
            }
        }

        /// Builds a public key of `type` from parameters pushed by `fill`,
        /// then runs OpenSSL's public-key check (which for EC rejects
        /// points off the curve, defeating invalid-curve attacks).
        private convenience init(type: String, fill: (ParamBuilder) throws -> Void) throws {
            let builder = try ParamBuilder()
            try fill(builder)
            let params = try builder.toParams()
            defer { OSSL_PARAM_free(params) }
            guard let ctx = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
                throw OpenSSLErrors.error(.invalidKey, "EVP_PKEY_CTX_new_from_name")
            }
            defer { EVP_PKEY_CTX_free(ctx) }
            try OpenSSLErrors.check(EVP_PKEY_fromdata_init(ctx), .invalidKey, "EVP_PKEY_fromdata_init")
            var pkey: OpaquePointer?
            try OpenSSLErrors.check(EVP_PKEY_fromdata(ctx, &pkey, gh_evp_pkey_public_key_selection(), params),
                                    .invalidKey, "EVP_PKEY_fromdata")
            guard let pkey else { throw OpenSSLErrors.error(.invalidKey, "EVP_PKEY_fromdata returned no key") }
            self.init(taking: pkey)
            let check = try EVPKey.context(pkey, .invalidKey)
            defer { EVP_PKEY_CTX_free(check) }
            try OpenSSLErrors.check(EVP_PKEY_public_check(check), .invalidKey, "EVP_PKEY_public_check")
        }

        func spkiDER() throws -> [UInt8] { try EVPKey.spkiDER(pkey) }

        func spkiPEM() throws -> String {
            let der = try spkiDER()
            // PEM is base64 (standard alphabet, padded) in 64-column lines.
            let body = Base64Standard.encode(der)
            var lines = ["-----BEGIN PUBLIC KEY-----"]
            var index = body.startIndex
            while index < body.endIndex {
                let end = body.index(index, offsetBy: 64, limitedBy: body.endIndex) ?? body.endIndex
                lines.append(String(body[index..<end]))
                index = end
            }
            lines.append("-----END PUBLIC KEY-----")
            return lines.joined(separator: "\n") + "\n"
        }

        func verify(signature: [UInt8], message: UnsafeRawBufferPointer, algorithm: SigningKey.Algorithm) -> Bool {
            let encoded: [UInt8]
            switch algorithm {
            case .rs256:
                encoded = signature
            case .es256:
                // Only the fixed 64-byte JOSE form is valid; DER is refused by length.
                guard let der = ECDSASignature.der(fromRaw: signature) else { return false }
                encoded = der
            }
            guard !encoded.isEmpty else { return false }
            let digest = Digest.sha256(raw: message)
            guard let ctx = contexts.take() ?? makeVerifyContext() else {
                _ = OpenSSLErrors.drain()
                return false
            }
            let ok = EVP_PKEY_verify(ctx, encoded, encoded.count, digest, digest.count) == 1
            // A context stays reusable after a signature mismatch (1 or 0);
            // it carries no per-message state between EVP_PKEY_verify calls.
            contexts.give(ctx)
            // A bad signature leaves entries in the queue; clear them so they
            // are not reported against a later, unrelated failure.
            if !ok { _ = OpenSSLErrors.drain() }
            return ok
        }

        /// A context bound to this key, initialised for SHA-256 verification.
        private func makeVerifyContext() -> OpaquePointer? {
            guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { return nil }
            guard EVP_PKEY_verify_init(ctx) == 1,
                  EVP_PKEY_CTX_set_signature_md(ctx, Algorithms.sha256) == 1 else {
                EVP_PKEY_CTX_free(ctx)
                return nil
            }
            return ctx
        }
    }

    /// Wraps a backing after checking it is a supported key type.
    convenience init(backing: Backing) throws {
        let (algorithm, components, bits) = try EVPKey.inspect(backing.pkey)
        self.init(backing: backing, algorithm: algorithm, components: components, bits: bits)
    }
}

/// Standard padded base64, needed only for PEM armour.
enum Base64Standard {
    static func encode(_ bytes: [UInt8]) -> String {
        var text = Base64URL.encode(bytes)
            .replacingOccurrences("-", with: "+")
            .replacingOccurrences("_", with: "/")
        while text.utf8.count % 4 != 0 { text += "=" }
        return text
    }
}

private extension String {
    func replacingOccurrences(_ target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
