import Crypto
import Foundation
import JOSE
import Model
import Settings
import Storage
import Testing
import TestSupport
@testable import KeyManagement

@Suite struct KeyManagerTests {
    let directory: TemporaryDirectory
    let settings: Settings

    init() throws {
        directory = try TemporaryDirectory("keys")
        var settings = Settings()
        settings.database = directory.file("idp.sqlite3")
        self.settings = settings
    }

    private func open(_ settings: Settings? = nil, clock: any Clock = SystemClock()) throws -> (Store, KeyManager) {
        let settings = settings ?? self.settings
        let store = try Store(path: settings.database)
        return (store, try KeyManager.open(store: store, settings: settings, clock: clock))
    }

    @Test func firstStartCreatesOneActiveKeyPerAlgorithmAndAPrivateKEKFile() throws {
        let (store, keys) = try open()
        defer { store.close() }
        let records = try keys.list()
        #expect(records.map(\.algorithm).sorted() == ["ES256", "RS256"])
        #expect(records.allSatisfy { $0.status == .active })
        let attributes = try FileManager.default.attributesOfItem(atPath: settings.effectiveKeyEncryptionKeyFile)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let set = try keys.keySet()
        #expect(set.signers[.rs256]?.key.publicKey.rsaBits == 2048)
        #expect(set.signers[.es256] != nil)
    }

    @Test func reopeningKeepsTheSameKeys() throws {
        let first = try open()
        let kids = try first.1.list().map(\.kid)
        first.0.close()
        let second = try open()
        defer { second.0.close() }
        #expect(try second.1.list().map(\.kid) == kids)
    }

    @Test func theKidIsTheRFC7638ThumbprintAndThePrivateKeyIsNotStoredInPlaintext() throws {
        let (store, keys) = try open()
        defer { store.close() }
        let set = try keys.keySet()
        for (_, signer) in set.signers {
            #expect(signer.kid == JWK.thumbprint(of: signer.key.publicKey))
            let record = try #require(try keys.list().first { $0.kid == signer.kid })
            let der = try signer.key.pkcs8DER()
            #expect(!contains(record.encryptedPrivateKey, der.suffix(32)))
        }
        // Nor anywhere in the database file.
        try store.database.checkpoint(truncate: true)
        let file = try Array(Data(contentsOf: URL(fileURLWithPath: settings.database)))
        for (_, signer) in set.signers { #expect(!contains(file, try signer.key.pkcs8DER().suffix(32))) }
    }

    @Test func aWrongKeyEncryptionKeyIsAClearErrorNeverANewKeySet() throws {
        let first = try open()
        let kids = try first.1.list().map(\.kid)
        first.0.close()
        var wrong = settings
        wrong.keyEncryptionKey = Data(Random.bytes(32)).base64EncodedString()
        let store = try Store(path: settings.database)
        defer { store.close() }
        #expect {
            _ = try KeyManager.open(store: store, settings: wrong)
        } throws: { error in
            guard case KeyError.wrongKeyEncryptionKey(let kid, let source) = error else { return false }
            return kids.contains(kid) && source == "key_encryption_key"
        }
        #expect(try SigningKeyStore(store: store).all().map(\.kid) == kids)
    }

    @Test func aMissingKEKFileBesideExistingKeysIsAnError() throws {
        let first = try open()
        first.0.close()
        try FileManager.default.removeItem(atPath: settings.effectiveKeyEncryptionKeyFile)
        let store = try Store(path: settings.database)
        defer { store.close() }
        #expect(throws: KeyError.self) { _ = try KeyManager.open(store: store, settings: settings) }
        #expect(!FileManager.default.fileExists(atPath: settings.effectiveKeyEncryptionKeyFile))
    }

    @Test func aMalformedKEKFileIsAnError() throws {
        try "too short".write(toFile: settings.effectiveKeyEncryptionKeyFile, atomically: true, encoding: .utf8)
        let store = try Store(path: settings.database)
        defer { store.close() }
        #expect(throws: KeyError.self) { _ = try KeyManager.open(store: store, settings: settings) }
    }

    @Test func anInlineKEKIsUsedAndNoFileIsCreated() throws {
        var inline = settings
        inline.keyEncryptionKey = Data(Random.bytes(32)).base64EncodedString()
        let (store, keys) = try open(inline)
        defer { store.close() }
        #expect(try keys.list().count == 2)
        #expect(!FileManager.default.fileExists(atPath: settings.effectiveKeyEncryptionKeyFile))
    }

    @Test func rotationRetiresThePredecessorWhichStaysPublished() throws {
        let (store, keys) = try open()
        defer { store.close() }
        let before = try keys.keySet()
        let oldKid = try #require(before.signers[.rs256]?.kid)
        let token = try JWS.sign(payload: Array("{}".utf8), key: before.signers[.rs256]!.key, kid: oldKid)

        let rotated = try keys.rotate(.rs256)
        let after = try keys.keySet()
        #expect(after.signers[.rs256]?.kid == rotated.kid)
        #expect(after.signers[.rs256]?.kid != oldKid)
        #expect(try keys.list().first { $0.kid == oldKid }?.status == .retired)
        // A token signed just before the rotation still verifies against the new key set.
        #expect(throws: Never.self) { _ = try JWS.verify(token, keys: after.verificationKey) }
        let jwks = try JWKSet(json: after.jwksBody)
        #expect(jwks.keys.map(\.kid) == [rotated.kid, after.signers[.es256]!.kid, oldKid])
        #expect(after.etag != before.etag)
    }

    @Test func theLastActiveKeyOfAnAlgorithmCannotBeRetiredAndActiveKeysCannotBeDeleted() throws {
        let (store, keys) = try open()
        defer { store.close() }
        let es = try #require(try keys.keySet().signers[.es256]?.kid)
        #expect(throws: KeyError.self) { try keys.retire(kid: es) }
        #expect(throws: KeyError.self) { try keys.delete(kid: es) }
        #expect(throws: KeyError.self) { try keys.retire(kid: "unknown") }
        #expect(throws: KeyError.self) { try keys.delete(kid: "unknown") }
        try keys.rotate(.es256)
        try keys.delete(kid: es)
        #expect(try keys.keySet().verifiers[es] == nil)
    }

    @Test func aCiphertextMovedToAnotherRowDoesNotDecrypt() throws {
        let (store, keys) = try open()
        defer { store.close() }
        let records = try keys.list()
        let rsa = try #require(records.first { $0.algorithm == "RS256" })
        let ec = try #require(records.first { $0.algorithm == "ES256" })
        #expect(throws: KeyError.self) { _ = try keys.vault.open(rsa.encryptedPrivateKey, kid: ec.kid, algorithm: "RS256") }
        var tampered = rsa.encryptedPrivateKey
        tampered[tampered.count / 2] ^= 1
        #expect(throws: KeyError.self) { _ = try keys.vault.open(tampered, kid: rsa.kid, algorithm: rsa.algorithm) }
    }

    @Test func theJWKSCarriesOnlyPublicMembersWithKidAlgAndUse() throws {
        let (store, keys) = try open()
        defer { store.close() }
        let object = try JSONSerialization.jsonObject(with: Data(try keys.keySet().jwksBody)) as? [String: [[String: String]]]
        let jwks = try #require(object?["keys"])
        #expect(jwks.count == 2)
        for key in jwks {
            #expect(Set(key.keys).isDisjoint(with: ["d", "p", "q", "dp", "dq", "qi", "k"]))
            #expect(key["use"] == "sig")
            #expect(key["kid"] != nil)
            #expect(["RS256", "ES256"].contains(key["alg"]))
        }
        let rsa = try #require(jwks.first { $0["kty"] == "RSA" })
        #expect(try Base64URL.decode(rsa["n"]!).first != 0)
        #expect(try Base64URL.decode(rsa["n"]!).count * 8 >= 2048)
    }

    @Test func aKeyRingNoticesARotationMadeByAnotherProcess() throws {
        let (store, keys) = try open()
        defer { store.close() }
        let ring = try KeyRing(manager: keys, logger: .init(sink: .memory()))
        let before = ring.current.signers[.es256]?.kid
        #expect(!ring.refresh())
        // Another process (idp-admin) rotates through its own connection.
        let other = try open()
        let rotated = try other.1.rotate(.es256)
        other.0.close()
        #expect(ring.refresh())
        #expect(ring.current.signers[.es256]?.kid == rotated.kid)
        #expect(ring.current.verifiers[before!] != nil)
    }

    @Test func configuredRSAKeySizeApplies() throws {
        var big = settings
        big.rsaKeyBits = 3072
        let (store, keys) = try open(big)
        defer { store.close() }
        #expect(try keys.keySet().signers[.rs256]?.key.publicKey.rsaBits == 3072)
    }

    private func contains(_ haystack: [UInt8], _ needle: some Collection<UInt8>) -> Bool {
        let needle = Array(needle)
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
