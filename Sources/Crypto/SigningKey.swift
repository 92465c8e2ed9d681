/// A private signing key for JWS: RSA (RS256) or ECDSA P-256 (ES256).
///
/// Instances are immutable and safe to share across tasks; one key object
/// should be reused for many signatures (the parsed OpenSSL key is kept).
public final class SigningKey: Sendable {
    /// The JWS algorithms Gatehouse signs and verifies with.
    public enum Algorithm: String, Sendable, CaseIterable, Codable {
        /// RSASSA-PKCS1-v1_5 with SHA-256.
        case rs256 = "RS256"
        /// ECDSA on P-256 with SHA-256; signatures are raw `r || s` (64 bytes).
        case es256 = "ES256"
    }

    /// The algorithm this key signs with, fixed by its type.
    public let algorithm: Algorithm
    /// The matching public key (holds no private material).
    public let publicKey: PublicKey
    let backing: Backing

    init(backing: Backing, algorithm: Algorithm, publicKey: PublicKey) {
        self.backing = backing
        self.algorithm = algorithm
        self.publicKey = publicKey
    }

    /// Generates a fresh key. `rsaBits` (2048, 3072 or 4096) applies to RS256 only.
    public static func generate(_ algorithm: Algorithm, rsaBits: Int = 2048) throws -> SigningKey {
        if algorithm == .rs256, ![2048, 3072, 4096].contains(rsaBits) {
            throw CryptoError(.invalidInput, detail: "unsupported RSA size \(rsaBits)")
        }
        return try SigningKey(backing: Backing.generate(algorithm, rsaBits: rsaBits))
    }

    /// Imports an unencrypted PKCS#8 `PrivateKeyInfo` (RSA ≥ 2048 bits or EC P-256).
    public convenience init(pkcs8DER: [UInt8]) throws {
        try self.init(backing: Backing(pkcs8DER: pkcs8DER))
    }

    /// Exports the key as unencrypted PKCS#8 DER, for the caller to encrypt at rest.
    public func pkcs8DER() throws -> [UInt8] {
        try backing.pkcs8DER()
    }

    /// Signs `message` (the JWS signing input). RS256 returns a modulus-sized
    /// signature; ES256 returns exactly 64 bytes, `r || s`.
    public func sign(_ message: some Collection<UInt8>) throws -> [UInt8] {
        let bytes = Array(message)
        return try bytes.withUnsafeBytes { try backing.sign(raw: $0, algorithm: algorithm) }
    }
}
