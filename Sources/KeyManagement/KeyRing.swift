import Logging
import Synchronization

/// The daemon's current `KeySet`, refreshed when the stored keys change
/// (e.g. after `idp-admin keys rotate` in another process); the daemon calls `refresh()`
/// every few seconds.
public final class KeyRing: Sendable {
    private let manager: KeyManager
    private let state: Mutex<(fingerprint: String, keys: KeySet)>
    private let logger: Logger

    public init(manager: KeyManager, logger: Logger) throws(KeyError) {
        self.manager = manager
        self.logger = logger
        let fingerprint = try manager.fingerprint()
        state = Mutex((fingerprint, try manager.keySet()))
    }

    /// A server secret derived from the key-encryption key (`KeyEncryptionKey.derivedKey`).
    public func derivedKey(purpose: String) -> [UInt8] { manager.derivedKey(purpose: purpose) }

    /// The keys to sign and verify with now.
    public var current: KeySet { state.withLock { $0.keys } }

    /// Reloads the keys when their fingerprint changed; returns whether it did.
    /// A failed reload keeps the previous keys, so signing never stops.
    @discardableResult
    public func refresh() -> Bool {
        do {
            let fingerprint = try manager.fingerprint()
            guard fingerprint != state.withLock({ $0.fingerprint }) else { return false }
            let keys = try manager.keySet()
            state.withLock { $0 = (fingerprint, keys) }
            logger.info("signing_keys_reloaded", ["kids": .string(keys.records.map { "\($0.kid):\($0.status.rawValue)" }.joined(separator: ","))])
            return true
        } catch {
            logger.error("signing_keys_reload_failed", ["error": .string(error.description)])
            return false
        }
    }
}
