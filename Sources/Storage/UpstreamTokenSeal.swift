import Crypto
import Model

/// Seals upstream refresh tokens at rest with AES-256-GCM under a key derived from the
/// key-encryption key (`UpstreamTokenKey.purpose`), bound by associated data to where the box
/// belongs (an identity, or a revocation row), so a database copy reveals no token and a box
/// cannot be moved elsewhere. Shared by the identity's token and the revocation queue.
struct UpstreamTokenSeal: Sendable {
    private static let version: UInt8 = 1
    private let key: [UInt8]

    init(key: [UInt8]) {
        precondition(key.count == AESGCM.keySize, "the upstream token seal key must have 32 bytes")
        self.key = key
    }

    func seal(_ token: String, boundTo binding: String) throws(StorageError) -> [UInt8] {
        do {
            return [Self.version] + (try AESGCM.seal(Array(token.utf8), key: key, associatedData: Array(binding.utf8)))
        } catch {
            throw .internal("cannot seal an upstream token: \(error)")
        }
    }

    /// Nil for a box not sealed here with this key and binding.
    func open(_ sealed: [UInt8], boundTo binding: String) -> String? {
        guard sealed.first == Self.version,
              let plain = try? AESGCM.open(sealed.dropFirst(), key: key, associatedData: Array(binding.utf8)) else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }

    static func identityBinding(connection: String, subject: String) -> String {
        "gatehouse upstream refresh token v1 \(connection) \(subject)"
    }

    static func revocationBinding(connection: String, clientID: String, createdAt: Int64) -> String {
        "gatehouse upstream revocation v1 \(connection) \(clientID) \(createdAt)"
    }
}

/// The one label the daemon and `idp-admin` derive the upstream tokens' seal key under.
public enum UpstreamTokenKey {
    public static let purpose = "gatehouse upstream tokens v1"
}
