/// AES-256-GCM authenticated encryption with a random 96-bit nonce per message.
///
/// Box layout: `nonce (12) || ciphertext || tag (16)`. Random nonces are safe
/// for far fewer than 2^32 messages per key, which suits encrypting keys and
/// secrets at rest.
public enum AESGCM {
    public static let keySize = 32
    public static let nonceSize = 12
    public static let tagSize = 16

    /// Encrypts and authenticates `plaintext`, binding `associatedData`.
    public static func seal(_ plaintext: some Collection<UInt8>, key: [UInt8],
                            associatedData: [UInt8] = []) throws -> [UInt8] {
        guard key.count == keySize else { throw CryptoError(.invalidInput, detail: "AES-256-GCM key must be 32 bytes") }
        let nonce = Random.bytes(nonceSize)
        let (ciphertext, tag) = try AESGCMCore.encrypt(Array(plaintext), key: key, nonce: nonce, aad: associatedData)
        return nonce + ciphertext + tag
    }

    /// Decrypts a box made by `seal`. A wrong key, wrong associated data or
    /// any modified byte throws `.authenticationFailure`.
    public static func open(_ box: some Collection<UInt8>, key: [UInt8],
                            associatedData: [UInt8] = []) throws -> [UInt8] {
        guard key.count == keySize else { throw CryptoError(.invalidInput, detail: "AES-256-GCM key must be 32 bytes") }
        let bytes = Array(box)
        guard bytes.count >= nonceSize + tagSize else {
            throw CryptoError(.authenticationFailure, detail: "box shorter than nonce and tag")
        }
        let nonce = Array(bytes[..<nonceSize])
        let ciphertext = Array(bytes[nonceSize..<(bytes.count - tagSize)])
        let tag = Array(bytes[(bytes.count - tagSize)...])
        return try AESGCMCore.decrypt(ciphertext, key: key, nonce: nonce, aad: associatedData, tag: tag)
    }
}
