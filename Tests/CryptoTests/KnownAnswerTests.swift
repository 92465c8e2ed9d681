import Crypto
import Testing

@Suite("Known-answer vectors")
struct KnownAnswerTests {
    @Test("SHA-256 of \"abc\" (FIPS 180-2)")
    func sha256abc() {
        #expect(Digest.sha256Hex(Array("abc".utf8))
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Digest.sha256([UInt8]()).count == 32)
    }

    @Test("HMAC-SHA256 RFC 4231 test cases 1 and 2")
    func hmacRFC4231() {
        let case1 = HMAC.sha256(key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8))
        #expect(case1 == hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"))
        let case2 = HMAC.sha256(key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8))
        #expect(case2 == hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
    }

    /// Contexts are reused across calls: a long key, an empty key and empty data each start afresh,
    /// also while other threads use the pool (RFC 4231 case 6; the empty pair's well-known value).
    @Test("HMAC-SHA256 on reused contexts, concurrently")
    func hmacReusedContexts() async {
        let long = (key: [UInt8](repeating: 0xaa, count: 131), data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                    mac: hex("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"))
        let empty = (key: [UInt8](), data: [UInt8](), mac: hex("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"))
        let wrong = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var failures = 0
                    for round in 0..<200 {
                        let row = (task + round) % 2 == 0 ? long : empty
                        if HMAC.sha256(key: row.key, data: row.data) != row.mac { failures += 1 }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }

    /// A `KeyedHMAC` gives the same MAC as `HMAC.sha256` with its key, call after call on its
    /// rewound contexts and from several threads at once (RFC 4231 cases 1, 2 and 6; the empty pair).
    @Test("Keyed HMAC-SHA256: RFC 4231 on rewound contexts, concurrently")
    func keyedHMAC() async {
        let vectors: [(key: [UInt8], data: [UInt8], mac: [UInt8])] = [
            ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8), hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")),
            (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8), hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")),
            ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
             hex("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")),
            ([], [], hex("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")),
        ]
        let keyed = vectors.map { KeyedHMAC(key: $0.key) }
        let wrong = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var failures = 0
                    for round in 0..<200 {
                        let index = (task + round) % vectors.count
                        // Another message under the same key in between: a rewind must forget it.
                        _ = keyed[index].sha256(Array("interleaved \(round)".utf8))
                        if keyed[index].sha256(vectors[index].data) != vectors[index].mac { failures += 1 }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
        #expect(keyed[1].sha256(ArraySlice(vectors[1].data)) == HMAC.sha256(key: vectors[1].key, data: vectors[1].data))
    }

    @Test("PKCE S256 pair from RFC 7636 Appendix B")
    func pkce() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(Base64URL.encode(Digest.sha256(Array(verifier.utf8))) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test("scrypt RFC 7914 §12 vectors 1 and 2")
    func scryptRFC7914() throws {
        let first = try Scrypt.derive(password: [], salt: [], n: 16, r: 1, p: 1, length: 64)
        #expect(first == hex("""
            77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442
            fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906
            """))
        let second = try Scrypt.derive(password: Array("password".utf8), salt: Array("NaCl".utf8),
                                       n: 1024, r: 8, p: 16, length: 64)
        #expect(second == hex("""
            fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162
            2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640
            """))
    }

    /// RFC 9106 §5.3: Argon2id with a secret (K) and associated data (X), 4 lanes, 32 KiB, 3 passes.
    @Test("Argon2id RFC 9106 §5.3 vector")
    func argon2idRFC9106() throws {
        let tag = try Argon2id.derive(password: [UInt8](repeating: 1, count: 32), salt: [UInt8](repeating: 2, count: 16),
                                      parameters: Argon2Parameters(memoryKiB: 32, iterations: 3, parallelism: 4), length: 32,
                                      secret: [UInt8](repeating: 3, count: 8), associatedData: [UInt8](repeating: 4, count: 12))
        #expect(tag == hex("0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"))
    }

    @Test("constant-time equality")
    func constantTime() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
    }

    @Test("random bytes and tokens")
    func random() throws {
        #expect(Random.bytes(0).isEmpty)
        #expect(Random.bytes(48).count == 48)
        #expect(Random.bytes(32) != Random.bytes(32))
        let token = Random.token()
        #expect(token.count == 43)
        #expect(try Base64URL.decode(token).count == 32)
    }
}
