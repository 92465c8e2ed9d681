import Crypto
import FoundationEssentials
import JOSE
import Model

/// What the upstream callback needs to check the provider's answer and resume the login
/// (README "Upstream connections"): the `state`, `nonce` and PKCE verifier sent upstream
/// (`UpstreamAuthorizationRequest`), the connection, and the login transaction itself with its raw
/// id. The transaction travels inside because Apple answers with a cross-site POST, which carries
/// this cookie (`SameSite=None`) but not the transaction's own (`SameSite=Lax`).
public struct UpstreamPendingState: Sendable, Equatable {
    public var state: String
    public var nonce: String
    public var codeVerifier: String
    public var connection: String
    public var transactionID: String
    public var transaction: LoginTransaction
    public var expiresAt: Date

    public init(state: String, nonce: String, codeVerifier: String, connection: String, transactionID: String,
                transaction: LoginTransaction, expiresAt: Date) {
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.connection = connection
        self.transactionID = transactionID
        self.transaction = transaction
        self.expiresAt = expiresAt
    }
}

/// Seals `UpstreamPendingState` into its own cookie with AES-256-GCM, as `TransactionSeal` does for
/// the login transaction: nothing is stored before the provider answers, and the values cannot be
/// read or changed by the browser. Its associated data differs from the transaction's, so neither
/// cookie opens as the other even under one key.
public struct UpstreamStateSeal: Sendable {
    static let associatedData = Array("gatehouse upstream sign-in v1".utf8)
    /// One cookie of about 4 KB. With the login transaction's own cookie beside it, the `Cookie`
    /// header stays under nginx's default 8 KB line; a request too long for that signs in with
    /// the password form only.
    public static let maximumCookieLength = 3_800
    private let key: [UInt8]

    /// - Parameter key: 32 bytes (the daemon derives it from the key-encryption key).
    public init(key: [UInt8]) {
        precondition(key.count == AESGCM.keySize, "the upstream state seal key must have 32 bytes")
        self.key = key
    }

    /// The cookie value (base64url), or nil when it would not fit a cookie.
    public func seal(_ pending: UpstreamPendingState) -> String? {
        let object: [String: JSONValue] = [
            "state": .string(pending.state), "nonce": .string(pending.nonce), "code_verifier": .string(pending.codeVerifier),
            "connection": .string(pending.connection), "tx": .string(pending.transactionID),
            "transaction": .object(TransactionSeal.object(pending.transaction, id: pending.transactionID)),
            "expires_at": .integer(Int64(pending.expiresAt.timeIntervalSince1970.rounded(.down))),
        ]
        guard let box = try? AESGCM.seal(JSONBody.encode(object), key: key, associatedData: Self.associatedData) else { return nil }
        let value = Base64URL.encode(box)
        return value.utf8.count <= Self.maximumCookieLength ? value : nil
    }

    /// The pending state, or nil for anything not sealed by us with this key, or past its expiry at `now`.
    public func open(_ cookie: String, now: Date) -> UpstreamPendingState? {
        guard cookie.utf8.count <= Self.maximumCookieLength, let box = try? Base64URL.decode(cookie),
              let plain = try? AESGCM.open(box, key: key, associatedData: Self.associatedData),
              case .object(let object)? = try? JSONValue(parsing: plain),
              let state = object["state"]?.stringValue, let nonce = object["nonce"]?.stringValue,
              let verifier = object["code_verifier"]?.stringValue, let connection = object["connection"]?.stringValue,
              let transactionID = object["tx"]?.stringValue, let expires = object["expires_at"]?.integerValue,
              case .object(let sealed)? = object["transaction"], let (sealedID, transaction) = TransactionSeal.transaction(sealed),
              sealedID == transactionID else { return nil }
        let expiresAt = Date(timeIntervalSince1970: TimeInterval(expires))
        guard now < expiresAt else { return nil }
        return UpstreamPendingState(state: state, nonce: nonce, codeVerifier: verifier, connection: connection,
                                    transactionID: transactionID, transaction: transaction, expiresAt: expiresAt)
    }
}
