import Crypto

/// Encrypts and decrypts signing keys' PKCS#8 form with AES-256-GCM under the key-encryption key.
///
/// The ciphertext is bound to its `kid` and algorithm as associated data, so a stored
/// private key cannot be swapped onto another row without failing to decrypt.
struct KeyVault: Sendable {
    let keyEncryptionKey: KeyEncryptionKey

    /// Format version byte in front of the AES-GCM box, so the scheme can change later.
    private static let version: UInt8 = 1

    func seal(_ key: SigningKey, kid: String) throws -> [UInt8] {
        let box = try AESGCM.seal(try key.pkcs8DER(), key: keyEncryptionKey.bytes, associatedData: Self.associatedData(kid: kid, algorithm: key.algorithm.rawValue))
        return [Self.version] + box
    }

    func open(_ sealed: [UInt8], kid: String, algorithm: String) throws(KeyError) -> SigningKey {
        guard sealed.first == Self.version else { throw .corruptKey(kid: kid, reason: "unknown encryption format") }
        let plaintext: [UInt8]
        do {
            plaintext = try AESGCM.open(sealed.dropFirst(), key: keyEncryptionKey.bytes, associatedData: Self.associatedData(kid: kid, algorithm: algorithm))
        } catch {
            throw .wrongKeyEncryptionKey(kid: kid, source: keyEncryptionKey.source)
        }
        do {
            let key = try SigningKey(pkcs8DER: plaintext)
            guard key.algorithm.rawValue == algorithm else { throw KeyError.corruptKey(kid: kid, reason: "stored as \(algorithm) but is \(key.algorithm.rawValue)") }
            return key
        } catch let error as KeyError {
            throw error
        } catch {
            throw .corruptKey(kid: kid, reason: "not a valid private key")
        }
    }

    private static func associatedData(kid: String, algorithm: String) -> [UInt8] {
        Array("gatehouse signing key \(algorithm) \(kid)".utf8)
    }
}
