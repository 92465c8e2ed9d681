/// A failure inside the crypto layer.
///
/// `kind` is what callers branch on. `detail` carries the drained OpenSSL
/// error queue (or a short reason) and is meant for logs only: it can name
/// internal library functions and must never be shown to end users.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// Key generation failed inside OpenSSL.
        case keyGeneration
        /// Key material could not be parsed or is not a supported key.
        case invalidKey
        /// Producing a signature failed.
        case signing
        /// Serialising a key failed.
        case encoding
        /// Encryption failed (bad key length, OpenSSL failure).
        case encryption
        /// Authenticated decryption failed: wrong key, wrong AAD or tampered data.
        case authenticationFailure
        /// The input is malformed (wrong length, bad encoding, out-of-range parameter).
        case invalidInput
        /// A key derivation (Argon2id, scrypt) failed.
        case keyDerivation
    }

    public let kind: Kind
    /// Log-only diagnostic text; never part of a user-facing message.
    public let detail: String

    public init(_ kind: Kind, detail: String = "") {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "CryptoError(\(kind.rawValue))" }
}
