import Crypto
import FoundationEssentials
import JOSE
import Model
import Synchronization

/// Apple's client secret: instead of a shared secret, a client authenticates to Apple's token and
/// revoke endpoints with an ES256 JWT signed by the team's `.p8` key (README "Sign in with Apple"):
/// header `alg ES256`, `kid` the key id; claims `iss` the team id, `sub` the client id it is sent
/// with (the Services ID on the web, the bundle id for a native code), `aud` Apple, `iat`, and `exp`
/// an hour later. One secret is reused per (connection, client id) until five minutes before it
/// expires, so a busy connection signs about once an hour; a changed key, key id or team id makes
/// a new one at once.
public final class AppleClientSecret: Sendable {
    /// How long a secret is valid (Apple accepts up to six months; an hour bounds a leaked one).
    public static let lifetime: TimeInterval = 3600
    /// A cached secret closer than this to its expiry is renewed, so none expires in flight.
    public static let renewalMargin: TimeInterval = 300

    private struct Entry {
        var fingerprint: [UInt8]
        var secret: String
        var expiresAt: Date
    }

    private let clock: any Clock
    private let cache = Mutex<[String: Entry]>([:])

    public init(clock: any Clock) {
        self.clock = clock
    }

    /// The client secret for `clientID` at Apple, or `.connection` naming what is missing or broken.
    public func secret(for connection: UpstreamConnection, clientID: String) throws(UpstreamError) -> String {
        guard connection.strategy == .apple else { throw .connection("connection \(connection.name) is not an apple connection") }
        guard let teamID = connection.teamID, !teamID.isEmpty else {
            throw .connection("connection \(connection.name) has no team id (--team-id) for its client secret")
        }
        guard let keyID = connection.keyID, !keyID.isEmpty else {
            throw .connection("connection \(connection.name) has no key id (--key-id) for its client secret")
        }
        guard let pem = connection.privateKey, !pem.isEmpty else {
            throw .connection("connection \(connection.name) has no .p8 key (--private-key-file) for its client secret")
        }
        let now = clock.now
        let cacheKey = connection.name + "\u{1F}" + clientID
        let fingerprint = Digest.sha256(Array((teamID + "\u{1F}" + keyID + "\u{1F}" + pem).utf8))
        if let entry = cache.withLock({ $0[cacheKey] }), entry.fingerprint == fingerprint,
           now < entry.expiresAt.addingTimeInterval(-Self.renewalMargin) {
            return entry.secret
        }
        let key: SigningKey
        do {
            key = try SigningKey(pkcs8PEM: pem)
        } catch {
            throw .connection("connection \(connection.name): the .p8 key is not a readable PKCS#8 PEM private key")
        }
        guard key.algorithm == .es256 else {
            throw .connection("connection \(connection.name): the .p8 key is not a P-256 (ES256) key")
        }
        let iat = Int64(now.timeIntervalSince1970.rounded(.down))
        let claims: [String: JSONValue] = [
            "iss": .string(teamID), "sub": .string(clientID), "aud": .string(AppleEndpoints.clientSecretAudience),
            "iat": .integer(iat), "exp": .integer(iat + Int64(Self.lifetime)),
        ]
        let secret: String
        do {
            secret = try JWS.sign(claims: claims, key: key, kid: keyID, typ: nil)
        } catch {
            throw .connection("connection \(connection.name): signing the client secret failed")
        }
        let expiresAt = Date(timeIntervalSince1970: TimeInterval(iat) + Self.lifetime)
        cache.withLock { $0[cacheKey] = Entry(fingerprint: fingerprint, secret: secret, expiresAt: expiresAt) }
        return secret
    }
}
