import Crypto
import FoundationEssentials
import Model

/// A parsed token-endpoint request: body parameters (form, or JSON flattened to string pairs
/// by the web layer) and the `Authorization` header value, if any.
public struct TokenRequest: Sendable, Equatable {
    public let parameters: [String: String]
    /// The raw `Authorization` header value.
    public let authorization: String?

    /// A repeated parameter is `invalid_request` (RFC 6749 §3.2).
    public init(pairs: [(String, String)], authorization: String? = nil) throws(OAuthError) {
        var parameters: [String: String] = [:]
        parameters.reserveCapacity(pairs.count)
        for (name, value) in pairs {
            // Names equal as strings are repeats, whether or not their bytes are (NFC and NFD).
            guard parameters[name] == nil else {
                throw OAuthError(.invalidRequest, "\(name) is repeated")
            }
            parameters[name] = value
        }
        self.parameters = parameters
        self.authorization = authorization
    }

    public subscript(_ name: String) -> String? { parameters[name] }
}

/// A client that passed client authentication, and how.
public struct AuthenticatedClient: Sendable, Equatable {
    public let client: Client
    public let method: Client.AuthMethod
}

/// Client authentication at the token endpoint (RFC 6749 §2.3, §3.2.1; OIDC Core §9).
///
/// - `client_secret_basic`: `Authorization: Basic base64(urlencode(id):urlencode(secret))`, both
///   parts form-decoded (RFC 6749 §2.3.1). Malformed → `invalid_client`, never a crash.
/// - `client_secret_post`: `client_id` and `client_secret` in the body.
/// - `none`: only `client_id`, for public clients.
/// - Both Basic and a body secret → `invalid_request`; a body `client_id` other than Basic's → `invalid_request`.
/// - Unknown client, wrong secret, or a method the client does not allow → the same
///   `invalid_client` (401 with `WWW-Authenticate: Basic`).
/// - A public client that sends a secret is refused with `invalid_client`: RFC 8252 §8.5 says a
///   secret must not count as authentication for it, and silently ignoring it would hide a
///   misconfigured app; its only allowed method is `none`.
public enum ClientAuthenticator {
    static let failed = "client authentication failed"

    public static func authenticate(_ request: TokenRequest, clients: any ClientStore) throws(OAuthError) -> AuthenticatedClient {
        let basic = try basicCredentials(request.authorization)
        let bodyID = request["client_id"]
        let bodySecret = request["client_secret"]
        let clientID: String
        let secret: String?
        let method: Client.AuthMethod
        if let basic {
            guard bodySecret == nil else {
                throw OAuthError(.invalidRequest, "use one client authentication method, not Basic and client_secret")
            }
            if let bodyID, Array(bodyID.utf8) != Array(basic.id.utf8) {
                throw OAuthError(.invalidRequest, "client_id differs from the Basic credentials")
            }
            (clientID, secret, method) = (basic.id, basic.secret, .clientSecretBasic)
        } else if let bodyID, !bodyID.isEmpty {
            (clientID, secret, method) = (bodyID, bodySecret, bodySecret == nil ? .none : .clientSecretPost)
        } else {
            throw OAuthError(.invalidRequest, "client_id is required")
        }

        let found: Client?
        do {
            found = try clients.find(clientID: clientID)
        } catch {
            throw OAuthError(storage: error)
        }
        guard let client = found, Array(client.clientID.utf8) == Array(clientID.utf8) else {
            throw OAuthError(.invalidClient, failed, detail: "unknown client \(clientID.debugDescription)")
        }
        guard client.authMethods.contains(method) else {
            throw OAuthError(.invalidClient, failed, detail: "\(client.clientID) may not use \(method.rawValue)")
        }
        if method != .none {
            guard let secret, let hash = client.secretHash, SecretDigest.matches(secret, storedHash: hash) else {
                throw OAuthError(.invalidClient, failed, detail: "wrong secret for \(client.clientID)")
            }
        }
        return AuthenticatedClient(client: client, method: method)
    }

    /// Parses a Basic header; nil when there is no header. Other schemes and malformed values → `invalid_client`.
    static func basicCredentials(_ header: String?) throws(OAuthError) -> (id: String, secret: String)? {
        guard let header else { return nil }
        let bytes = Array(header.utf8)
        guard bytes.count > 6, bytes.prefix(6).map(ASCII.lowercase) == Array("basic ".utf8) else {
            throw OAuthError(.invalidClient, failed, detail: "unsupported Authorization scheme")
        }
        let encoded = String(decoding: bytes.dropFirst(6), as: UTF8.self).trimmingWhitespace()
        guard encoded.utf8.count <= 4096, let data = Data(base64Encoded: encoded),
              let decoded = String(data: data, encoding: .utf8),
              // RFC 7617 §2: the user-id ends at the first colon octet.
              let colon = decoded.utf8.firstIndex(of: UInt8(ascii: ":")) else {
            throw OAuthError(.invalidClient, failed, detail: "malformed Basic credentials")
        }
        guard let id = formDecode(decoded[..<colon]), let secret = formDecode(decoded[decoded.utf8.index(after: colon)...]),
              !id.isEmpty else {
            throw OAuthError(.invalidClient, failed, detail: "malformed Basic credentials encoding")
        }
        return (id, secret)
    }

    /// `application/x-www-form-urlencoded` decoding: `+` is a space, `%XX` a byte; nil for bad escapes or UTF-8.
    static func formDecode(_ text: Substring) -> String? {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "+"):
                out.append(UInt8(ascii: " "))
                index += 1
            case UInt8(ascii: "%"):
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else {
                    return nil
                }
                out.append(high << 4 | low)
                index += 3
            default:
                out.append(bytes[index])
                index += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
