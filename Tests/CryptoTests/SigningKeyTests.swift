import Crypto
import Testing

@Suite("Signing keys")
struct SigningKeyTests {
    @Test("RS256 sign/verify", arguments: [2048, 3072])
    func rs256(bits: Int) throws {
        let key = try SigningKey.generate(.rs256, rsaBits: bits)
        let message = Array("header.payload".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == bits / 8)
        #expect(key.publicKey.verify(signature, for: message))
        #expect(!key.publicKey.verify(signature, for: Array("header.payloae".utf8)))
        var flipped = signature
        flipped[10] ^= 1
        #expect(!key.publicKey.verify(flipped, for: message))
        #expect(key.publicKey.rsaBits == bits)
        #expect(key.publicKey.algorithm == .rs256)
        // PKCS#1 v1.5 is deterministic.
        #expect(try key.sign(message) == signature)
    }

    @Test("RSA modulus has no leading zero byte and e is 65537")
    func rsaComponents() throws {
        for _ in 0..<3 {
            let key = try SigningKey.generate(.rs256)
            let n = try #require(key.publicKey.n)
            #expect(n.count == 256)
            #expect(n.first != 0)
            #expect(key.publicKey.e == [0x01, 0x00, 0x01])
            // Rebuilding from components gives an equivalent key.
            let rebuilt = try PublicKey(rsaModulus: n, exponent: [1, 0, 1])
            #expect(rebuilt.verify(try key.sign([1, 2, 3]), for: [1, 2, 3]))
        }
    }

    @Test("ES256 signatures are always 64 bytes and verify (200 signatures)")
    func es256() throws {
        let key = try SigningKey.generate(.es256)
        #expect(key.publicKey.x?.count == 32)
        #expect(key.publicKey.y?.count == 32)
        #expect(key.publicKey.rsaBits == nil)
        for index in 0..<200 {
            let message = Array("message \(index)".utf8)
            let signature = try key.sign(message)
            #expect(signature.count == 64)
            #expect(key.publicKey.verify(signature, for: message))
        }
    }

    @Test("ES256 pads short r and s to 32 bytes")
    func es256ShortScalars() throws {
        // About 1 in 128 signatures has r (or s) with a leading zero byte;
        // keep signing until both cases have been seen and verified.
        let key = try SigningKey.generate(.es256)
        var shortR = false, shortS = false
        for index in 0..<20_000 where !(shortR && shortS) {
            let message = Array("m\(index)".utf8)
            let signature = try key.sign(message)
            #expect(signature.count == 64)
            if signature[0] == 0 || signature[32] == 0 {
                #expect(key.publicKey.verify(signature, for: message))
                shortR = shortR || signature[0] == 0
                shortS = shortS || signature[32] == 0
            }
        }
        #expect(shortR && shortS)
    }

    @Test("one key signs concurrently from many tasks")
    func concurrentSigning() async throws {
        let keys = [try SigningKey.generate(.rs256), try SigningKey.generate(.es256)]
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<25 {
                        for key in keys {
                            let message = Array("task \(task) message \(index)".utf8)
                            guard key.publicKey.verify(try key.sign(message), for: message) else { return false }
                        }
                    }
                    return true
                }
            }
            for try await ok in group { #expect(ok) }
        }
    }

    @Test("ES256 verification refuses DER and wrong lengths")
    func es256RejectsDER() throws {
        let key = try SigningKey.generate(.es256)
        let message = Array("m".utf8)
        let raw = try key.sign(message)
        let der = derFromRaw(raw)
        #expect(!key.publicKey.verify(der, for: message))
        #expect(!key.publicKey.verify(raw.dropLast(), for: message))
        #expect(!key.publicKey.verify(raw + [0], for: message))
        #expect(!key.publicKey.verify([UInt8](repeating: 0, count: 64), for: message))
        #expect(!key.publicKey.verify([UInt8](), for: message))
    }

    @Test("PKCS#8 export/import round trip", arguments: [SigningKey.Algorithm.rs256, .es256])
    func pkcs8(algorithm: SigningKey.Algorithm) throws {
        let key = try SigningKey.generate(algorithm)
        let der = try key.pkcs8DER()
        let imported = try SigningKey(pkcs8DER: der)
        #expect(imported.algorithm == algorithm)
        #expect(imported.publicKey.components == key.publicKey.components)
        #expect(key.publicKey.verify(try imported.sign([9, 9]), for: [9, 9]))
        #expect(throws: CryptoError.self) { try SigningKey(pkcs8DER: der + [0]) }
        #expect(throws: CryptoError.self) { try SigningKey(pkcs8DER: Array(der.prefix(40))) }
        #expect(throws: CryptoError.self) { try SigningKey(pkcs8DER: []) }
    }

    @Test("SPKI round trip and P-256 point validation")
    func spki() throws {
        let key = try SigningKey.generate(.es256)
        let spki = try key.publicKey.spkiDER()
        #expect(try PublicKey(spkiDER: spki).components == key.publicKey.components)
        #expect(try key.publicKey.spkiPEM().hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        var y = try #require(key.publicKey.y)
        y[31] ^= 1
        #expect(throws: CryptoError.self) { try PublicKey(p256X: key.publicKey.x!, y: y) }
        #expect(throws: CryptoError.self) { try PublicKey(p256X: [1], y: [2]) }
    }

    @Test("small RSA moduli and unsupported sizes are refused")
    func rsaLimits() throws {
        #expect(throws: CryptoError.self) { try SigningKey.generate(.rs256, rsaBits: 1024) }
        let tiny = [UInt8](repeating: 0xff, count: 128) // 1024-bit
        #expect(throws: CryptoError.self) { try PublicKey(rsaModulus: tiny, exponent: [1, 0, 1]) }
    }
}

/// Encodes a raw r||s signature as DER, independently of the library.
func derFromRaw(_ raw: [UInt8]) -> [UInt8] {
    func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }
    let body = integer(raw[0..<32]) + integer(raw[32..<64])
    return [0x30, UInt8(body.count)] + body
}
