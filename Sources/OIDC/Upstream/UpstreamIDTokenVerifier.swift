import Crypto
import FoundationEssentials
import JOSE

/// Verifies an upstream provider's ID token (OpenID Connect Core §3.1.3.7): the signature with a key
/// from the provider's JWKS — RS256 or ES256 only, the algorithm decided by the key we hold, so
/// `none` and HMAC with the public key as secret fail by construction (`JWS.verify`) —, `iss`, `aud`
/// (and `azp` with several audiences), `exp` and `iat` with a small leeway, and `nonce`.
public struct UpstreamIDTokenVerifier: Sendable {
    public let keys: UpstreamKeyCache
    /// Clock skew tolerated on `exp` and `iat`.
    public var leeway: TimeInterval = 60
    /// An `iat` older than this is refused: an ID token is used at once after its issue.
    public var maximumAge: TimeInterval = 10 * 60

    public init(keys: UpstreamKeyCache) {
        self.keys = keys
    }

    /// What the token must say.
    public struct Expectation: Sendable {
        public var issuer: String
        public var jwksURL: String
        /// Any one of these may be the `aud`.
        public var audiences: [String]
        /// The `nonce` claim must equal it. nil only for a token Gatehouse received itself from the
        /// provider's token endpoint for a code it redeemed once (OpenID Connect Core §3.1.3.7).
        public var nonce: String?

        public init(issuer: String, jwksURL: String, audiences: [String], nonce: String?) {
            self.issuer = issuer
            self.jwksURL = jwksURL
            self.audiences = audiences
            self.nonce = nonce
        }
    }

    /// The verified claims, or `.invalidIDToken` naming the failed check.
    public func verify(_ token: String, expecting expected: Expectation, now: Date) throws(UpstreamError) -> [String: JSONValue] {
        // The key lookup cannot throw through JWS.verify: fetch first, for the kid the header names.
        let header = Self.header(token)
        // Named before anything else: `alg: none` comes with an empty signature, which would read as malformed.
        if let alg = header?["alg"]?.stringValue, alg != "RS256" && alg != "ES256" {
            throw .invalidIDToken(Self.reason(.unsupportedAlgorithm(alg)))
        }
        let kid = header?["kid"]?.stringValue
        var lookupError: UpstreamError?
        var key: JWK?
        if let kid {
            do { key = try keys.key(kid: kid, url: expected.jwksURL, now: now) } catch { lookupError = error }
        }
        if let lookupError { throw lookupError }
        let verified: VerifiedJWS
        do {
            verified = try JWS.verify(token) { requested in
                guard requested == kid, let key, let publicKey = try? key.publicKey() else { return nil }
                return (publicKey, publicKey.algorithm)
            }
        } catch let error as JWSError {
            throw .invalidIDToken(Self.reason(error))
        } catch {
            throw .invalidIDToken("unreadable")
        }
        guard let claims = try? verified.claims() else { throw .invalidIDToken("the payload is not a JSON object") }
        guard claims["iss"]?.stringValue == expected.issuer else {
            throw .invalidIDToken("iss \(claims["iss"]?.stringValue ?? "missing") is not \(expected.issuer)")
        }
        let audiences: [String] = switch claims["aud"] {
        case .string(let one): [one]
        case .array(let many): many.compactMap(\.stringValue)
        default: []
        }
        guard audiences.contains(where: expected.audiences.contains) else {
            throw .invalidIDToken("aud \(audiences.joined(separator: ",")) is not ours")
        }
        if audiences.count > 1, let azp = claims["azp"]?.stringValue, !expected.audiences.contains(azp) {
            throw .invalidIDToken("azp \(azp) is not ours")
        }
        let time = now.timeIntervalSince1970
        guard let exp = Self.seconds(claims["exp"]) else { throw .invalidIDToken("exp missing") }
        guard time < exp + leeway else { throw .invalidIDToken("expired") }
        guard let iat = Self.seconds(claims["iat"]) else { throw .invalidIDToken("iat missing") }
        guard iat <= time + leeway else { throw .invalidIDToken("iat is in the future") }
        guard time - iat <= maximumAge + leeway else { throw .invalidIDToken("iat is too old") }
        if let expectedNonce = expected.nonce {
            guard let nonce = claims["nonce"]?.stringValue else { throw .invalidIDToken("nonce missing") }
            guard ConstantTime.equals(Array(nonce.utf8), Array(expectedNonce.utf8)) else { throw .invalidIDToken("nonce mismatch") }
        }
        guard let sub = claims["sub"]?.stringValue, !sub.isEmpty, sub.utf8.count <= 255 else { throw .invalidIDToken("sub missing") }
        return claims
    }

    static func seconds(_ value: JSONValue?) -> TimeInterval? {
        switch value {
        case .integer(let seconds): TimeInterval(seconds)
        case .number(let seconds): seconds
        default: nil
        }
    }

    /// The token's header, read before verification only to pick the key and refuse a foreign `alg` early.
    static func header(_ token: String) -> [String: JSONValue]? {
        guard let dot = token.utf8.firstIndex(of: UInt8(ascii: ".")), token.utf8.distance(from: token.utf8.startIndex, to: dot) <= 4096,
              let bytes = try? Base64URL.decode(String(token[..<dot])), case .object(let header)? = try? JSONValue(parsing: bytes) else {
            return nil
        }
        return header
    }

    /// The payload's claims read without trusting them, only to pick the connection whose keys verify it.
    static func unverifiedClaims(_ token: String) -> [String: JSONValue]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= JWS.maximumLength, parts.count == 3, let bytes = try? Base64URL.decode(parts[1]),
              case .object(let claims)? = try? JSONValue(parsing: bytes) else { return nil }
        return claims
    }

    static func reason(_ error: JWSError) -> String {
        switch error {
        case .malformed: "malformed"
        case .invalidHeader: "invalid header"
        case .unsupportedAlgorithm(let alg): "alg \(alg) is not allowed (RS256 or ES256 only)"
        case .algorithmMismatch: "alg does not match the key"
        case .unknownKey: "unknown kid"
        case .criticalHeader: "crit header"
        case .badSignature: "bad signature"
        case .invalidPayload: "the payload is not a JSON object"
        }
    }
}
