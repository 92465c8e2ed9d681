import Crypto

/// Why a JWK was refused.
public enum JWKError: Error, Sendable, Equatable {
    /// The JWK carries private members (`d`, `p`, `q`, `dp`, `dq`, `qi`, `oth`, `k`).
    case containsPrivateKey
    /// `kty` is not `RSA` or `EC`.
    case unsupportedKeyType(String)
    /// `crv` is not `P-256`.
    case unsupportedCurve(String)
    /// A required member is missing, badly encoded or of the wrong length.
    case invalidMember(String)
    /// `alg` does not fit the key type.
    case algorithmMismatch
    /// `use` is present and not `sig`.
    case invalidUse
    /// The numbers do not form a valid key.
    case invalidKey
}

/// A public JSON Web Key (RFC 7517) for RS256 or ES256.
public struct JWK: Codable, Sendable, Equatable {
    public var kty: String
    public var use: String?
    public var alg: String?
    public var kid: String?
    public var n: String?
    public var e: String?
    public var crv: String?
    public var x: String?
    public var y: String?
    /// Set when decoding saw private-key members; `publicKey()` then refuses.
    /// Never encoded, so private material cannot be re-emitted.
    public private(set) var containsPrivateMembers = false

    private enum CodingKeys: String, CodingKey {
        case kty, use, alg, kid, n, e, crv, x, y
    }

    private enum PrivateKeys: String, CodingKey, CaseIterable {
        case d, p, q, dp, dq, qi, oth, k
    }

    public init(kty: String, use: String? = nil, alg: String? = nil, kid: String? = nil,
                n: String? = nil, e: String? = nil, crv: String? = nil, x: String? = nil, y: String? = nil) {
        self.kty = kty
        self.use = use
        self.alg = alg
        self.kid = kid
        self.n = n
        self.e = e
        self.crv = crv
        self.x = x
        self.y = y
    }

    /// Describes `publicKey` as a signing JWK with `use: sig` and its `alg`.
    public init(publicKey: PublicKey, kid: String) {
        switch publicKey.components {
        case .rsa(let n, let e):
            self.init(kty: "RSA", use: "sig", alg: publicKey.algorithm.rawValue, kid: kid,
                      n: Base64URL.encode(n), e: Base64URL.encode(e))
        case .p256(let x, let y):
            self.init(kty: "EC", use: "sig", alg: publicKey.algorithm.rawValue, kid: kid,
                      crv: "P-256", x: Base64URL.encode(x), y: Base64URL.encode(y))
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kty = try container.decode(String.self, forKey: .kty)
        use = try container.decodeIfPresent(String.self, forKey: .use)
        alg = try container.decodeIfPresent(String.self, forKey: .alg)
        kid = try container.decodeIfPresent(String.self, forKey: .kid)
        n = try container.decodeIfPresent(String.self, forKey: .n)
        e = try container.decodeIfPresent(String.self, forKey: .e)
        crv = try container.decodeIfPresent(String.self, forKey: .crv)
        x = try container.decodeIfPresent(String.self, forKey: .x)
        y = try container.decodeIfPresent(String.self, forKey: .y)
        let privateMembers = try decoder.container(keyedBy: PrivateKeys.self)
        containsPrivateMembers = PrivateKeys.allCases.contains { privateMembers.contains($0) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kty, forKey: .kty)
        try container.encodeIfPresent(use, forKey: .use)
        try container.encodeIfPresent(alg, forKey: .alg)
        try container.encodeIfPresent(kid, forKey: .kid)
        try container.encodeIfPresent(n, forKey: .n)
        try container.encodeIfPresent(e, forKey: .e)
        try container.encodeIfPresent(crv, forKey: .crv)
        try container.encodeIfPresent(x, forKey: .x)
        try container.encodeIfPresent(y, forKey: .y)
    }

    /// Builds the verification key this JWK describes, strictly: no private
    /// members, known `kty`/`crv`, canonical base64url, exact coordinate
    /// lengths, no leading zero on `n` or `e`, and `alg`/`use` consistent.
    public func publicKey() throws -> PublicKey {
        if containsPrivateMembers { throw JWKError.containsPrivateKey }
        if let use, use != "sig" { throw JWKError.invalidUse }
        switch kty {
        case "RSA":
            guard crv == nil, x == nil, y == nil else { throw JWKError.invalidMember("EC member on RSA key") }
            if let alg, alg != SigningKey.Algorithm.rs256.rawValue { throw JWKError.algorithmMismatch }
            let modulus = try Self.decode(n, "n")
            let exponent = try Self.decode(e, "e")
            // RFC 7518 §6.3.1: unsigned big-endian with no leading zero octets.
            guard modulus.first != 0 else { throw JWKError.invalidMember("n") }
            guard exponent.first != 0, exponent.count <= 8 else { throw JWKError.invalidMember("e") }
            do { return try PublicKey(rsaModulus: modulus, exponent: exponent) } catch { throw JWKError.invalidKey }
        case "EC":
            guard n == nil, e == nil else { throw JWKError.invalidMember("RSA member on EC key") }
            guard let crv else { throw JWKError.invalidMember("crv") }
            guard crv == "P-256" else { throw JWKError.unsupportedCurve(crv) }
            if let alg, alg != SigningKey.Algorithm.es256.rawValue { throw JWKError.algorithmMismatch }
            let xBytes = try Self.decode(x, "x")
            let yBytes = try Self.decode(y, "y")
            // RFC 7518 §6.2.1.2: coordinates are full-length, 32 bytes for P-256.
            guard xBytes.count == 32 else { throw JWKError.invalidMember("x") }
            guard yBytes.count == 32 else { throw JWKError.invalidMember("y") }
            do { return try PublicKey(p256X: xBytes, y: yBytes) } catch { throw JWKError.invalidKey }
        default:
            throw JWKError.unsupportedKeyType(kty)
        }
    }

    /// The RFC 7638 thumbprint of this JWK's key.
    public func thumbprint() throws -> String {
        try Self.thumbprint(of: publicKey())
    }

    /// RFC 7638 thumbprint: base64url SHA-256 of the required members in
    /// lexicographic order with no whitespace. Member values are base64url
    /// or fixed names, so no JSON escaping can arise.
    public static func thumbprint(of key: PublicKey) -> String {
        let canonical: String
        switch key.components {
        case .rsa(let n, let e):
            canonical = #"{"e":"\#(Base64URL.encode(e))","kty":"RSA","n":"\#(Base64URL.encode(n))"}"#
        case .p256(let x, let y):
            canonical = #"{"crv":"P-256","kty":"EC","x":"\#(Base64URL.encode(x))","y":"\#(Base64URL.encode(y))"}"#
        }
        return Base64URL.encode(Digest.sha256(Array(canonical.utf8)))
    }

    private static func decode(_ member: String?, _ name: String) throws -> [UInt8] {
        guard let member, let bytes = try? Base64URL.decode(member), !bytes.isEmpty else {
            throw JWKError.invalidMember(name)
        }
        return bytes
    }
}

/// A JWK Set, `{"keys":[…]}` (RFC 7517 §5).
public struct JWKSet: Codable, Sendable, Equatable {
    public var keys: [JWK]

    public init(keys: [JWK]) { self.keys = keys }

    /// Parses a JWKS document.
    public init(json: some Collection<UInt8>) throws {
        self = try CanonicalJSON.decode(JWKSet.self, from: Array(json))
    }

    /// Stable JSON: sorted keys, compact, unescaped slashes.
    public func jsonBytes() throws -> [UInt8] { try CanonicalJSON.encode(self) }

    /// `jsonBytes()` as a string.
    public func jsonString() throws -> String { String(decoding: try jsonBytes(), as: UTF8.self) }

    /// The first key with `kid`, if any.
    public func key(kid: String) -> JWK? { keys.first { $0.kid == kid } }
}
