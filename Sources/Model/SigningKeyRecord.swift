import FoundationEssentials

/// A signing key as stored: its public JWK and its AES-GCM-encrypted private key.
public struct SigningKeyRecord: Sendable, Equatable {
    /// `active` keys sign and are published; `retired` keys are only published,
    /// so tokens they signed keep verifying until the key is deleted.
    public enum Status: String, Sendable, CaseIterable {
        case active, retired
    }

    /// RFC 7638 thumbprint of the public key.
    public let kid: String
    /// `RS256` or `ES256`.
    public let algorithm: String
    public var status: Status
    public let encryptedPrivateKey: [UInt8]
    /// The public JWK as JSON text, exactly as published.
    public let publicJWK: String
    public let createdAt: Date
    public var retiredAt: Date?

    public init(kid: String, algorithm: String, status: Status, encryptedPrivateKey: [UInt8], publicJWK: String,
                createdAt: Date, retiredAt: Date? = nil) {
        self.kid = kid
        self.algorithm = algorithm
        self.status = status
        self.encryptedPrivateKey = encryptedPrivateKey
        self.publicJWK = publicJWK
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }
}
