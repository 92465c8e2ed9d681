import COpenSSL

/// The EVP_CIPHER calls behind `AESGCM`.
enum AESGCMCore {
    private static func withContext<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        guard let ctx = EVP_CIPHER_CTX_new() else { throw OpenSSLErrors.error(.encryption, "EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        return try body(ctx)
    }

    static func encrypt(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8],
                        aad: [UInt8]) throws -> (ciphertext: [UInt8], tag: [UInt8]) {
        try withContext { ctx in
            // The default GCM IV length is 12 bytes, matching AESGCM.nonceSize.
            try OpenSSLErrors.check(EVP_EncryptInit_ex2(ctx, Algorithms.aes256gcm, key, nonce, nil),
                                    .encryption, "EVP_EncryptInit_ex2")
            var length: Int32 = 0
            if !aad.isEmpty {
                try OpenSSLErrors.check(EVP_EncryptUpdate(ctx, nil, &length, aad, Int32(aad.count)),
                                        .encryption, "AAD")
            }
            // GCM is a stream mode: output never exceeds input; +1 keeps the pointer non-null.
            var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 1)
            var total = 0
            if !plaintext.isEmpty {
                try OpenSSLErrors.check(EVP_EncryptUpdate(ctx, &ciphertext, &length, plaintext, Int32(plaintext.count)),
                                        .encryption, "EVP_EncryptUpdate")
                total = Int(length)
            }
            let status = ciphertext.withUnsafeMutableBufferPointer { buffer in
                EVP_EncryptFinal_ex(ctx, buffer.baseAddress! + total, &length)
            }
            try OpenSSLErrors.check(status, .encryption, "EVP_EncryptFinal_ex")
            total += Int(length)
            ciphertext.removeLast(ciphertext.count - total)
            var tag = [UInt8](repeating: 0, count: AESGCM.tagSize)
            try OpenSSLErrors.check(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(AESGCM.tagSize), &tag),
                                    .encryption, "get tag")
            return (ciphertext, tag)
        }
    }

    static func decrypt(_ ciphertext: [UInt8], key: [UInt8], nonce: [UInt8],
                        aad: [UInt8], tag: [UInt8]) throws -> [UInt8] {
        try withContext { ctx in
            try OpenSSLErrors.check(EVP_DecryptInit_ex2(ctx, Algorithms.aes256gcm, key, nonce, nil),
                                    .encryption, "EVP_DecryptInit_ex2")
            var length: Int32 = 0
            if !aad.isEmpty {
                try OpenSSLErrors.check(EVP_DecryptUpdate(ctx, nil, &length, aad, Int32(aad.count)),
                                        .encryption, "AAD")
            }
            var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 1)
            var total = 0
            if !ciphertext.isEmpty {
                try OpenSSLErrors.check(EVP_DecryptUpdate(ctx, &plaintext, &length, ciphertext, Int32(ciphertext.count)),
                                        .encryption, "EVP_DecryptUpdate")
                total = Int(length)
            }
            var expected = tag
            try OpenSSLErrors.check(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(tag.count), &expected),
                                    .encryption, "set tag")
            // Final compares the tag; failure means wrong key, AAD or modified data.
            let status = plaintext.withUnsafeMutableBufferPointer { buffer in
                EVP_DecryptFinal_ex(ctx, buffer.baseAddress! + total, &length)
            }
            guard status == 1 else {
                // Wipe the unauthenticated plaintext before reporting.
                plaintext.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
                throw OpenSSLErrors.error(.authenticationFailure, "GCM tag mismatch")
            }
            total += Int(length)
            plaintext.removeLast(plaintext.count - total)
            return plaintext
        }
    }
}
