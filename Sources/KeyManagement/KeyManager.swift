import Crypto
import FoundationEssentials
import JOSE
import Model
import Settings
import Storage

/// Creates, rotates, retires and deletes signing keys; used by the daemon and `idp-admin keys`.
public struct KeyManager: Sendable {
    let store: SigningKeyStore
    let vault: KeyVault
    let rsaBits: Int
    let clock: any Clock

    /// Opens the key store: loads the key-encryption key (creating it only when no key exists yet),
    /// checks that it decrypts every stored key, and creates an active RS256 and ES256 key when missing.
    public static func open(store: some SQLStorage, settings: Settings, clock: any Clock = SystemClock()) throws(KeyError) -> KeyManager {
        let keyStore = SigningKeyStore(store: store)
        let existing = try storage { try keyStore.all() }
        let kek = try KeyEncryptionKey.load(settings: settings, mayCreate: existing.isEmpty)
        let manager = KeyManager(store: keyStore, vault: KeyVault(keyEncryptionKey: kek), rsaBits: settings.rsaKeyBits, clock: clock)
        _ = try KeySet(records: existing, vault: manager.vault)  // Refuses a wrong key-encryption key up front.
        try manager.ensureActiveKeys(existing: existing)
        return manager
    }

    /// A server secret derived from the key-encryption key (`KeyEncryptionKey.derivedKey`).
    public func derivedKey(purpose: String) -> [UInt8] { vault.keyEncryptionKey.derivedKey(purpose: purpose) }

    /// The current keys, decrypted.
    public func keySet() throws(KeyError) -> KeySet {
        try KeySet(records: try list(), vault: vault)
    }

    public func list() throws(KeyError) -> [SigningKeyRecord] {
        try Self.storage { try store.all() }
    }

    /// A value that changes whenever the stored keys change.
    public func fingerprint() throws(KeyError) -> String {
        try Self.storage { try store.fingerprint() }
    }

    /// Generates a new active key for `algorithm` and retires the previous one in the same
    /// transaction; the retired key stays published so the tokens it signed keep verifying.
    @discardableResult
    public func rotate(_ algorithm: SigningKey.Algorithm) throws(KeyError) -> SigningKeyRecord {
        let record = try generate(algorithm)
        try Self.storage { try store.activate(record, at: clock.now) }
        return record
    }

    /// Stops a key from signing (it stays published); the last active key of an algorithm cannot be retired.
    public func retire(kid: String) throws(KeyError) {
        try Self.storage { try store.retire(kid: kid, at: clock.now) }
    }

    /// Removes a retired key from the JWKS for good; an active key cannot be deleted.
    public func delete(kid: String) throws(KeyError) {
        try Self.storage { try store.delete(kid: kid) }
    }

    /// A node that finds no active key of an algorithm proposes one; if another node got there
    /// first (`activateIfNone` says no), its own is dropped and the stored one is used.
    private func ensureActiveKeys(existing: [SigningKeyRecord]) throws(KeyError) {
        for algorithm in SigningKey.Algorithm.allCases
        where !existing.contains(where: { $0.algorithm == algorithm.rawValue && $0.status == .active }) {
            let record = try generate(algorithm)
            _ = try Self.storage { try store.activateIfNone(record) }
        }
    }

    private func generate(_ algorithm: SigningKey.Algorithm) throws(KeyError) -> SigningKeyRecord {
        do {
            let key = try SigningKey.generate(algorithm, rsaBits: rsaBits)
            let kid = JWK.thumbprint(of: key.publicKey)
            let publicJWK = String(decoding: try JWKSet(keys: [JWK(publicKey: key.publicKey, kid: kid)]).jsonBytes(), as: UTF8.self)
            return SigningKeyRecord(kid: kid, algorithm: algorithm.rawValue, status: .active,
                                    encryptedPrivateKey: try vault.seal(key, kid: kid), publicJWK: publicJWK, createdAt: clock.now)
        } catch {
            throw .storage("cannot generate a \(algorithm.rawValue) key: \(error)")
        }
    }

    static func storage<T>(_ body: () throws -> T) throws(KeyError) -> T {
        do {
            return try body()
        } catch let error as KeyError {
            throw error
        } catch {
            throw .storage(String(describing: error))
        }
    }
}
