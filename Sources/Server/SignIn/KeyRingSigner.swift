import Crypto
import JOSE
import KeyManagement
import OIDC

/// Signs tokens with the active key of the requested algorithm from the live key ring.
struct KeyRingSigner: TokenSigner {
    let keyRing: KeyRing

    func sign(claims: [String: JSONValue], algorithm: SigningKey.Algorithm, typ: String) throws -> String {
        guard let signer = keyRing.current.signers[algorithm] else {
            throw OAuthError(.serverError, "internal error", detail: "no active \(algorithm.rawValue) signing key")
        }
        return try JWS.sign(claims: claims, key: signer.key, kid: signer.kid, typ: typ)
    }
}
