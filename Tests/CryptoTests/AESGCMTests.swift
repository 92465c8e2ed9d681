import Crypto
import Testing

@Suite("AES-256-GCM")
struct AESGCMTests {
    let key = Random.bytes(32)

    @Test("round trip, including empty plaintext and AAD")
    func roundTrip() throws {
        for plaintext in [[UInt8](), Array("secret".utf8), Random.bytes(1000)] {
            let box = try AESGCM.seal(plaintext, key: key, associatedData: Array("row 7".utf8))
            #expect(box.count == 12 + plaintext.count + 16)
            #expect(try AESGCM.open(box, key: key, associatedData: Array("row 7".utf8)) == plaintext)
        }
        let noAAD = try AESGCM.seal(Array("x".utf8), key: key)
        #expect(try AESGCM.open(noAAD, key: key) == Array("x".utf8))
    }

    @Test("nonces differ between seals")
    func freshNonce() throws {
        let a = try AESGCM.seal([1, 2, 3], key: key)
        let b = try AESGCM.seal([1, 2, 3], key: key)
        #expect(a.prefix(12) != b.prefix(12))
    }

    @Test("wrong key fails authentication")
    func wrongKey() throws {
        let box = try AESGCM.seal(Array("secret".utf8), key: key)
        #expect(throws: CryptoError.self) { try AESGCM.open(box, key: Random.bytes(32)) }
        do {
            _ = try AESGCM.open(box, key: Random.bytes(32))
        } catch let error as CryptoError {
            #expect(error.kind == .authenticationFailure)
        }
    }

    @Test("every tampered byte fails authentication")
    func tampered() throws {
        let box = try AESGCM.seal(Array("secret data".utf8), key: key)
        for index in box.indices {
            var copy = box
            copy[index] ^= 0x01
            #expect(throws: CryptoError.self) { try AESGCM.open(copy, key: key) }
        }
        #expect(throws: CryptoError.self) { try AESGCM.open(box.dropLast(), key: key) }
        #expect(throws: CryptoError.self) { try AESGCM.open(Array(box.prefix(27)), key: key) }
    }

    @Test("wrong associated data fails authentication")
    func wrongAAD() throws {
        let box = try AESGCM.seal(Array("secret".utf8), key: key, associatedData: Array("a".utf8))
        #expect(throws: CryptoError.self) { try AESGCM.open(box, key: key, associatedData: Array("b".utf8)) }
        #expect(throws: CryptoError.self) { try AESGCM.open(box, key: key) }
    }

    @Test("key must be 32 bytes")
    func keyLength() {
        #expect(throws: CryptoError.self) { try AESGCM.seal([1], key: Random.bytes(16)) }
    }
}
