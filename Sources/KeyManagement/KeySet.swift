import Crypto
import FoundationEssentials
import JOSE
import Model

/// An immutable view of the signing keys: who signs for each algorithm, which keys
/// verify, and the JWKS document with its ETag. Swapped whole when keys change.
public struct KeySet: Sendable {
    /// The active key per algorithm, with its `kid`.
    public let signers: [SigningKey.Algorithm: (kid: String, key: SigningKey)]
    /// Every published key (active and retired), by `kid`.
    public let verifiers: [String: PublicKey]
    /// Active then retired keys, RS256 first, newest first.
    public let records: [SigningKeyRecord]
    public let jwksBody: [UInt8]
    /// A strong validator for `If-None-Match`: the quoted SHA-256 of the body.
    public let etag: String

    init(records: [SigningKeyRecord], vault: KeyVault) throws(KeyError) {
        var signers: [SigningKey.Algorithm: (String, SigningKey)] = [:]
        var verifiers: [String: PublicKey] = [:]
        var jwks: [JWK] = []
        // Active before retired, RS256 (the default ID-token algorithm) first, newest first.
        let ordered = records.sorted { a, b in
            let rankA = (a.status == .active ? 0 : 1, a.algorithm == "RS256" ? 0 : 1)
            let rankB = (b.status == .active ? 0 : 1, b.algorithm == "RS256" ? 0 : 1)
            if rankA != rankB { return rankA < rankB }
            return (a.createdAt, a.kid) > (b.createdAt, b.kid)
        }
        for record in ordered {
            let key = try vault.open(record.encryptedPrivateKey, kid: record.kid, algorithm: record.algorithm)
            verifiers[record.kid] = key.publicKey
            if record.status == .active, signers[key.algorithm] == nil {
                // The newest active key signs; an older one still active is only published.
                signers[key.algorithm] = (record.kid, key)
            }
            jwks.append(JWK(publicKey: key.publicKey, kid: record.kid))
        }
        self.signers = signers.mapValues { (kid: $0.0, key: $0.1) }
        self.verifiers = verifiers
        self.records = ordered
        do {
            jwksBody = try JWKSet(keys: jwks).jsonBytes()
        } catch {
            throw .corruptKey(kid: "*", reason: "cannot render the JWKS: \(error)")
        }
        etag = "\"" + Digest.sha256Hex(jwksBody).prefix(32) + "\""
    }

    /// The public key and algorithm for a `kid`, as `JWS.verify` wants them.
    public func verificationKey(kid: String) -> (PublicKey, SigningKey.Algorithm)? {
        verifiers[kid].map { ($0, $0.algorithm) }
    }
}
