import Crypto

/// Compact JWS (RFC 7515) signing and verification for RS256 and ES256.
public enum JWS {
    public typealias Algorithm = SigningKey.Algorithm

    /// Longest compact token accepted, bounding work on hostile input.
    public static let maximumLength = 64 * 1024

    /// Signs `payload` bytes. The protected header holds `alg` (from the key),
    /// `kid`, `typ` unless nil, and `extra`; the three fixed members always
    /// win over same-named entries in `extra`, and `crit` is never emitted.
    public static func sign(header extra: [String: JSONValue] = [:], payload: [UInt8], key: SigningKey,
                            kid: String, typ: String? = "JWT") throws -> String {
        let headerBytes: [UInt8]
        if extra.isEmpty {
            // The usual header, written in its sorted order directly.
            var members: [(name: String, value: JSONValue)] = [("alg", .string(key.algorithm.rawValue)), ("kid", .string(kid))]
            if let typ { members.append(("typ", .string(typ))) }
            headerBytes = try JSONValue.jsonBytes(orderedMembers: members)
        } else {
            var header = extra
            header["crit"] = nil
            header["alg"] = .string(key.algorithm.rawValue)
            header["kid"] = .string(kid)
            header["typ"] = typ.map(JSONValue.string)
            headerBytes = try CanonicalJSON.encode(header)
        }
        let signingInput = Base64URL.encode(headerBytes) + "." + Base64URL.encode(payload)
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Signs a JSON claim set (compact, sorted keys, unescaped slashes).
    public static func sign(header extra: [String: JSONValue] = [:], claims: [String: JSONValue],
                            key: SigningKey, kid: String, typ: String? = "JWT") throws -> String {
        try sign(header: extra, payload: CanonicalJSON.encode(claims), key: key, kid: kid, typ: typ)
    }

    /// Verifies a compact JWS.
    ///
    /// The algorithm is decided by the key we hold for `kid`, never by the
    /// token: the header's `alg` must merely agree. This closes `alg: none`
    /// and the HS256-with-public-key confusion by construction.
    public static func verify(_ compact: String,
                              keys: (String) -> (PublicKey, Algorithm)?) throws -> VerifiedJWS {
        let bytes = Array(compact.utf8)
        guard bytes.count <= maximumLength else { throw JWSError.malformed }
        let segments = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3, segments.allSatisfy({ !$0.isEmpty }) else { throw JWSError.malformed }
        let headerBytes = try decodeSegment(segments[0])
        let payload = try decodeSegment(segments[1])
        let signature = try decodeSegment(segments[2])

        // The parser refuses repeated member names, so `{"alg":"ES256","alg":"none"}` never gets here.
        guard let header = CanonicalJSON.decodeObject(headerBytes) else {
            throw JWSError.invalidHeader
        }
        if header["crit"] != nil { throw JWSError.criticalHeader }
        guard case .string(let alg)? = header["alg"] else { throw JWSError.invalidHeader }
        guard let algorithm = Algorithm(rawValue: alg) else { throw JWSError.unsupportedAlgorithm(alg) }
        guard case .string(let kid)? = header["kid"] else { throw JWSError.invalidHeader }
        guard let (key, keyAlgorithm) = keys(kid) else { throw JWSError.unknownKey }
        guard keyAlgorithm == algorithm, key.algorithm == algorithm else { throw JWSError.algorithmMismatch }

        // The signing input is the two encoded segments exactly as received.
        let signingInput = bytes[..<(segments[1].endIndex)]
        guard key.verify(signature, for: signingInput) else { throw JWSError.badSignature }
        return VerifiedJWS(header: header, payload: payload, kid: kid, algorithm: algorithm)
    }

    private static func decodeSegment(_ segment: ArraySlice<UInt8>) throws -> [UInt8] {
        do {
            return try Base64URL.decode(String(decoding: segment, as: UTF8.self))
        } catch {
            throw JWSError.malformed
        }
    }
}

/// The result of a successful `JWS.verify`.
public struct VerifiedJWS: Sendable, Equatable {
    /// The protected header.
    public let header: [String: JSONValue]
    /// The payload bytes, exactly as signed.
    public let payload: [UInt8]
    /// The key id that verified the token.
    public let kid: String
    /// The algorithm that verified the token.
    public let algorithm: JWS.Algorithm

    /// The payload as a JWT claim set; throws `.invalidPayload` unless it is
    /// a JSON object without repeated member names.
    public func claims() throws -> [String: JSONValue] {
        guard let claims = CanonicalJSON.decodeObject(payload) else {
            throw JWSError.invalidPayload
        }
        return claims
    }
}
