import Crypto
import FoundationEssentials
import JOSE
import Model

/// Keeps a pending login transaction in its own cookie, sealed with AES-256-GCM under a server key,
/// so an anonymous `/authorize` stores nothing (the hardening issue: no anonymous request may make
/// the database grow). The transaction reaches the database only once the user has signed in
/// (`SignInStore.completeLogin`), which is what makes the continuation single use.
///
/// The sealed value binds everything the form post and the continuation need: the transaction id
/// (which the form carries as `tx`), the application, the validated request, the CSRF token's
/// digest and the expiry. Changing any byte, or sealing under another key, makes it unreadable.
public struct TransactionSeal: Sendable {
    /// The longest sealed value: the web layer splits it over two cookies of about 4 KB (a browser's
    /// limit for one), which keeps the `Cookie` header under nginx's default 8 KB line.
    public static let maximumCookieLength = 7_000
    static let associatedData = Array("gatehouse login transaction v1".utf8)
    private let key: [UInt8]

    /// - Parameter key: 32 bytes (the daemon derives it from the key-encryption key).
    public init(key: [UInt8]) {
        precondition(key.count == AESGCM.keySize, "the transaction seal key must have 32 bytes")
        self.key = key
    }

    /// The cookie value (base64url) for `transaction` with its raw `id`; nil when it would not fit a cookie.
    public func seal(_ transaction: LoginTransaction, id: String) -> String? {
        guard let box = try? AESGCM.seal(JSONBody.encode(Self.object(transaction, id: id)), key: key, associatedData: Self.associatedData) else {
            return nil
        }
        let value = Base64URL.encode(box)
        return value.utf8.count <= Self.maximumCookieLength ? value : nil
    }

    /// The transaction and its raw id, or nil for anything not sealed by us with this key.
    public func open(_ cookie: String) -> (id: String, transaction: LoginTransaction)? {
        guard cookie.utf8.count <= Self.maximumCookieLength, let box = try? Base64URL.decode(cookie),
              let plain = try? AESGCM.open(box, key: key, associatedData: Self.associatedData),
              case .object(let object)? = try? JSONValue(parsing: plain) else { return nil }
        return Self.transaction(object)
    }

    /// The transaction as the JSON object that is sealed (also inside the upstream sign-in's state).
    static func object(_ transaction: LoginTransaction, id: String) -> [String: JSONValue] {
        var object: [String: JSONValue] = [
            "id": .string(id),
            "client_id": .string(transaction.clientID),
            "parameters": .object(transaction.parameters.mapValues(JSONValue.string)),
            "csrf_hash": .string(transaction.csrfHash),
            "created_at": .integer(Int64(transaction.createdAt.timeIntervalSince1970.rounded(.down))),
            "expires_at": .integer(Int64(transaction.expiresAt.timeIntervalSince1970.rounded(.down))),
        ]
        object["session_id"] = transaction.sessionID.map(JSONValue.string)
        return object
    }

    static func transaction(_ object: [String: JSONValue]) -> (id: String, transaction: LoginTransaction)? {
        guard let id = object["id"]?.stringValue, let clientID = object["client_id"]?.stringValue,
              case .object(let rawParameters)? = object["parameters"], let csrfHash = object["csrf_hash"]?.stringValue,
              let created = object["created_at"]?.integerValue, let expires = object["expires_at"]?.integerValue else { return nil }
        var parameters: [String: String] = [:]
        for (name, value) in rawParameters {
            guard let text = value.stringValue else { return nil }
            parameters[name] = text
        }
        let transaction = LoginTransaction(idHash: SecretDigest.hash(id), clientID: clientID, parameters: parameters, csrfHash: csrfHash,
                                           createdAt: Date(timeIntervalSince1970: TimeInterval(created)),
                                           expiresAt: Date(timeIntervalSince1970: TimeInterval(expires)),
                                           sessionID: object["session_id"]?.stringValue)
        return (id, transaction)
    }
}
