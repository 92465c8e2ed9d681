/// Why signing keys could not be loaded or changed; phrased for the operator.
public enum KeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key-encryption key is missing, unreadable or malformed.
    case keyEncryptionKeyUnusable(String)
    /// The key-encryption key does not decrypt a stored signing key.
    case wrongKeyEncryptionKey(kid: String, source: String)
    /// A stored key is damaged or of an unknown kind.
    case corruptKey(kid: String, reason: String)
    case storage(String)

    public var description: String {
        switch self {
        case .keyEncryptionKeyUnusable(let why):
            "key-encryption key unusable: \(why)"
        case .wrongKeyEncryptionKey(let kid, let source):
            "the key-encryption key from \(source) does not decrypt signing key \(kid); "
                + "restore the key-encryption key these keys were created with (key_encryption_key or key_encryption_key_file). "
                + "Gatehouse never replaces existing signing keys on its own."
        case .corruptKey(let kid, let reason):
            "signing key \(kid) cannot be read: \(reason)"
        case .storage(let why):
            why
        }
    }
}
