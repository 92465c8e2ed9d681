// Fuzzes JWS.verify (Sources/JOSE/JWS.swift): compact serialization, base64url segments, the
// protected header, and signature checks against fixed keys (RFC 7515 §5.2, RFC 7518 §3).
//
// The keys are public halves whose private keys were discarded when they were generated, and
// the seed tokens are signed by other throwaway keys: no input can carry a valid signature,
// so verification must refuse every input. The seeds name the kids below, so mutations get
// as far as the signature check (ES256 raw-to-DER conversion, RSA PKCS #1 v1.5).

import JOSE

/// "es" and "rs" are honest; "mix" holds the P-256 key but claims RS256 (an algorithm mismatch).
let keys: [String: (PublicKey, JWS.Algorithm)] = fixture {
    let ec = JWK(kty: "EC", crv: "P-256", x: "qI1NY7xo70m00SYrLIDuIzmNOVZre9b5UiyiNvL_Vz8",
                 y: "jllsXPov-SZezYBsqHvsFpdKG3zxdPGRZKCis0ihrWQ")
    let rsa = JWK(kty: "RSA", n: """
        t4fnFZe5UgBc2mlYY-YHW5f3EwaFYoFwamiho6udJWZVsuR2q2QS6tCN4Q0uM8t3rp71Iv84RfWkl7u1ZX7RxU0tHOw9iq1dVxMYjV8Y7NkXbjHoGJ9KAQCA\
        rt2CKs5Qe6mTjadznWc_bMGYE7LjdiXqbQ60uFsRZswAIXKQfU6Y-8RNOz0y3qiw2oVVBtIXHcIPCg-VYwrfEn_NnD1QaFLp9_1gvUWhcXgrA8B6kwXpcEPl\
        c4xa50nws2-pRmm0L5YjzYz7Jbn68ERKCnB2Re5Xs2ygj_ueWFbWTAStFWx2-LYyF3siprD7yMMQdBT6x7dJwu-5VMsDYkMjDmJAKw
        """, e: "AQAB")
    let ecKey = try! ec.publicKey()
    return ["es": (ecKey, .es256), "rs": (try! rsa.publicKey(), .rs256), "mix": (ecKey, .rs256)]
}

func fuzz(_ input: [UInt8]) {
    let compact = String(decoding: input, as: UTF8.self)
    var lookups: [String] = []
    do {
        let verified = try JWS.verify(compact) { kid in
            lookups.append(kid)
            return keys[kid]
        }
        invariant(false, "accepted a token no key signed: kid \(verified.kid), \(describe(input))")
    } catch let error as JWSError {
        invariant(lookups.count <= 1, "\(lookups.count) key lookups for one token")
        switch error {
        case .unknownKey:
            invariant(lookups.count == 1 && keys[lookups[0]] == nil, "unknownKey for a held kid")
        case .algorithmMismatch, .badSignature:
            invariant(lookups.count == 1 && keys[lookups[0]] != nil, "\(error) without a held key")
        case .malformed, .invalidHeader, .unsupportedAlgorithm, .criticalHeader:
            // Refused before any key is chosen: the header decides nothing until it is understood.
            invariant(lookups.isEmpty, "\(error) after looking up \(lookups)")
        case .invalidPayload:
            invariant(false, "invalidPayload comes only from claims()")
        }
    } catch {
        invariant(false, "verify threw a non-JWSError: \(error)")
    }
    checkSegments(Array(compact.utf8))
}

/// Base64url as JWS uses it (RFC 7515 §2): no padding, and canonical, so a segment decodes
/// only if encoding its bytes gives the segment back (no second spelling of one header).
func checkSegments(_ bytes: [UInt8]) {
    for segment in bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
        let text = String(decoding: segment, as: UTF8.self)
        guard let decoded = try? Base64URL.decode(text) else { continue }
        invariant(Base64URL.encode(decoded) == text, "\(describe(segment)) decodes but is not canonical")
    }
}
