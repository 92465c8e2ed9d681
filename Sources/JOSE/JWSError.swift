/// Why a compact JWS was refused. Each case is a distinct, loggable reason;
/// none should be shown verbatim to clients beyond "invalid token".
public enum JWSError: Error, Sendable, Equatable {
    /// Not three non-empty segments of strict base64url, or oversized.
    case malformed
    /// The header is not a JSON object, repeats a member name, or lacks a string `alg`/`kid`.
    case invalidHeader
    /// `alg` is not one we verify (`none`, `HS256`, …).
    case unsupportedAlgorithm(String)
    /// The header's `alg` differs from the algorithm of the key held for `kid`.
    case algorithmMismatch
    /// No key is held for the header's `kid`.
    case unknownKey
    /// The header lists `crit` extensions; we understand none, so must reject.
    case criticalHeader
    /// The signature does not verify.
    case badSignature
    /// The payload is not a JSON object or repeats a member name (only when claims are requested).
    case invalidPayload
}
