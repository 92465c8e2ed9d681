import COpenSSL

/// An `OSSL_PARAM_BLD` plus the storage its values point into.
///
/// The builder records *pointers* to pushed strings, octets and BIGNUMs and
/// only copies them in `OSSL_PARAM_BLD_to_param`. Swift buffers handed to C
/// are valid only inside the call, so every value is copied into memory
/// owned here and released after the parameters have been built.
final class ParamBuilder {
    private let builder: OpaquePointer
    private var buffers: [UnsafeMutableRawBufferPointer] = []
    private var bignums: [OpaquePointer] = []

    init() throws {
        guard let builder = OSSL_PARAM_BLD_new() else { throw OpenSSLErrors.error(.invalidKey, "OSSL_PARAM_BLD_new") }
        self.builder = builder
    }

    deinit {
        OSSL_PARAM_BLD_free(builder)
        bignums.forEach { BN_free($0) }
        buffers.forEach { $0.deallocate() }
    }

    /// Copies `bytes` (plus a NUL, harmless for octets) into owned memory.
    private func retain(_ bytes: [UInt8]) -> UnsafeMutableRawBufferPointer {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 1, alignment: 1)
        buffer.copyBytes(from: bytes + [0])
        buffers.append(buffer)
        return buffer
    }

    func pushUTF8(_ name: UnsafePointer<CChar>, _ value: String) throws {
        let buffer = retain(Array(value.utf8))
        let status = OSSL_PARAM_BLD_push_utf8_string(builder, name,
                                                     buffer.baseAddress!.assumingMemoryBound(to: CChar.self),
                                                     buffer.count - 1)
        guard status == 1 else { throw OpenSSLErrors.error(.invalidKey, "push \(String(cString: name))") }
    }

    func pushOctets(_ name: UnsafePointer<CChar>, _ value: [UInt8]) throws {
        let buffer = retain(value)
        guard OSSL_PARAM_BLD_push_octet_string(builder, name, buffer.baseAddress, value.count) == 1 else {
            throw OpenSSLErrors.error(.invalidKey, "push \(String(cString: name))")
        }
    }

    func pushBignum(_ name: UnsafePointer<CChar>, _ bigEndian: [UInt8]) throws {
        guard let bn = bigEndian.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32($0.count), nil) }) else {
            throw OpenSSLErrors.error(.invalidKey, "BN_bin2bn")
        }
        bignums.append(bn)
        guard OSSL_PARAM_BLD_push_BN(builder, name, bn) == 1 else {
            throw OpenSSLErrors.error(.invalidKey, "push \(String(cString: name))")
        }
    }

    /// The finished parameter array; the caller frees it with `OSSL_PARAM_free`.
    func toParams() throws -> UnsafeMutablePointer<OSSL_PARAM> {
        guard let params = OSSL_PARAM_BLD_to_param(builder) else {
            throw OpenSSLErrors.error(.invalidKey, "OSSL_PARAM_BLD_to_param")
        }
        return params
    }
}
