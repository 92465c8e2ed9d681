/// A public verification key: RSA (RS256) or ECDSA P-256 (ES256).
public final class PublicKey: Sendable {
    /// The numbers a JWK needs, already in their JOSE byte forms.
    public enum Components: Sendable, Equatable {
        /// Big-endian modulus without leading zero bytes, and public exponent.
        case rsa(n: [UInt8], e: [UInt8])
        /// Affine coordinates, each left-padded to 32 bytes.
        case p256(x: [UInt8], y: [UInt8])
    }

    /// The algorithm this key verifies, fixed by its type.
    public let algorithm: SigningKey.Algorithm
    /// The key's public numbers.
    public let components: Components
    /// Key size in bits (modulus size for RSA, 256 for P-256).
    public let bits: Int
    let backing: Backing

    init(backing: Backing, algorithm: SigningKey.Algorithm, components: Components, bits: Int) {
        self.backing = backing
        self.algorithm = algorithm
        self.components = components
        self.bits = bits
    }

    /// Builds an RSA public key from big-endian modulus and exponent bytes.
    /// Moduli below 2048 bits are refused.
    public convenience init(rsaModulus n: [UInt8], exponent e: [UInt8]) throws {
        try self.init(backing: Backing(rsaModulus: n, exponent: e))
    }

    /// Builds a P-256 public key from 32-byte affine coordinates; the point
    /// must lie on the curve.
    public convenience init(p256X x: [UInt8], y: [UInt8]) throws {
        try self.init(backing: Backing(p256X: x, y: y))
    }

    /// Parses a DER `SubjectPublicKeyInfo` holding an RSA or P-256 key.
    public convenience init(spkiDER: [UInt8]) throws {
        try self.init(backing: Backing(spkiDER: spkiDER))
    }

    /// The key as DER `SubjectPublicKeyInfo`.
    public func spkiDER() throws -> [UInt8] { try backing.spkiDER() }

    /// The key as a PEM `PUBLIC KEY` block.
    public func spkiPEM() throws -> String { try backing.spkiPEM() }

    /// Checks `signature` over `message`. ES256 takes only the 64-byte raw
    /// `r || s` form; DER or any other length is refused.
    public func verify(_ signature: some Collection<UInt8>, for message: some Collection<UInt8>) -> Bool {
        let sig = Array(signature)
        let msg = Array(message)
        return msg.withUnsafeBytes { backing.verify(signature: sig, message: $0, algorithm: algorithm) }
    }

    /// RSA modulus (big-endian, no leading zero), or nil for EC keys.
    public var n: [UInt8]? { if case .rsa(let n, _) = components { n } else { nil } }
    /// RSA public exponent, or nil for EC keys.
    public var e: [UInt8]? { if case .rsa(_, let e) = components { e } else { nil } }
    /// P-256 x coordinate (32 bytes), or nil for RSA keys.
    public var x: [UInt8]? { if case .p256(let x, _) = components { x } else { nil } }
    /// P-256 y coordinate (32 bytes), or nil for RSA keys.
    public var y: [UInt8]? { if case .p256(_, let y) = components { y } else { nil } }
    /// Modulus size for RSA keys, nil for EC keys.
    public var rsaBits: Int? { algorithm == .rs256 ? bits : nil }
}
