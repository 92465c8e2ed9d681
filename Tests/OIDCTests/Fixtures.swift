import Crypto
import Foundation
import JOSE
import Model
import TestSupport
@testable import OIDC

// Private in-memory stores and fixtures for the OIDC tests (the shared ones in TestSupport are
// written elsewhere in parallel).

final class MemoryClientStore: ClientStore, @unchecked Sendable {
    private let lock = NSLock()
    private var clients: [String: Client] = [:]
    init(_ clients: [Client] = []) { for client in clients { self.clients[client.clientID] = client } }
    func create(_ client: Client) throws(StorageError) {
        lock.lock(); defer { lock.unlock() }
        guard clients[client.clientID] == nil else { throw .alreadyExists(client.clientID) }
        clients[client.clientID] = client
    }
    func find(clientID: String) throws(StorageError) -> Client? { lock.lock(); defer { lock.unlock() }; return clients[clientID] }
    func list() throws(StorageError) -> [Client] { lock.lock(); defer { lock.unlock() }; return Array(clients.values) }
    func update(_ client: Client) throws(StorageError) { lock.lock(); defer { lock.unlock() }; clients[client.clientID] = client }
    func delete(clientID: String) throws(StorageError) { lock.lock(); defer { lock.unlock() }; clients[clientID] = nil }
}

final class MemoryUserStore: UserStore, @unchecked Sendable {
    private let lock = NSLock()
    private var users: [String: User] = [:]
    init(_ users: [User] = []) { for user in users { self.users[user.userID] = user } }
    func create(_ user: User) throws(StorageError) { lock.lock(); defer { lock.unlock() }; users[user.userID] = user }
    func find(userID: String) throws(StorageError) -> User? { lock.lock(); defer { lock.unlock() }; return users[userID] }
    func find(email: String) throws(StorageError) -> User? {
        lock.lock(); defer { lock.unlock() }
        return users.values.first { User.emailKey($0.email) == User.emailKey(email) }
    }
    func update(_ user: User) throws(StorageError) { lock.lock(); defer { lock.unlock() }; users[user.userID] = user }
    func recordLogin(userID: String, at time: Date, rehashedPassword: String?) throws(StorageError) {}
}

final class MemoryCodeStore: AuthorizationCodeStore, @unchecked Sendable {
    private let lock = NSLock()
    private(set) var codes: [String: AuthorizationCode] = [:]
    func insert(_ code: AuthorizationCode) throws(StorageError) { lock.lock(); defer { lock.unlock() }; codes[code.codeHash] = code }
    func redeem(codeHash: String, at time: Date) throws(StorageError) -> CodeRedemption {
        lock.lock(); defer { lock.unlock() }
        guard var code = codes[codeHash] else { return .unknown }
        if code.usedAt != nil { return .replayed(code) }
        code.usedAt = time
        codes[codeHash] = code
        return .redeemed(code)
    }
    func attachGrant(codeHash: String, grantID: String) throws(StorageError) {
        lock.lock(); defer { lock.unlock() }
        codes[codeHash]?.grantID = grantID
    }
    var all: [AuthorizationCode] { lock.lock(); defer { lock.unlock() }; return Array(codes.values) }
}

final class MemoryGrantStore: GrantStore, @unchecked Sendable {
    private let lock = NSLock()
    private var grants: [String: Grant] = [:]
    func create(_ grant: Grant) throws(StorageError) { lock.lock(); defer { lock.unlock() }; grants[grant.grantID] = grant }
    func find(grantID: String) throws(StorageError) -> Grant? { lock.lock(); defer { lock.unlock() }; return grants[grantID] }
    func revoke(grantID: String, at time: Date, reason: String) throws(StorageError) {
        lock.lock(); defer { lock.unlock() }
        guard var grant = grants[grantID] else { throw .notFound(grantID) }
        if grant.revokedAt == nil { grant.revokedAt = time; grant.revokeReason = reason }
        grants[grantID] = grant
    }
    private var revokedMachineGrants: [String: Date] = [:]
    func revokeMachineGrant(grantID: String, until expiresAt: Date) throws(StorageError) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard revokedMachineGrants[grantID] == nil else { return false }
        revokedMachineGrants[grantID] = expiresAt
        return true
    }
    func isMachineGrantRevoked(grantID: String) throws(StorageError) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return revokedMachineGrants[grantID] != nil
    }
    var all: [Grant] { lock.lock(); defer { lock.unlock() }; return Array(grants.values) }
}

/// Signs with fixed test keys; `keys` is the matching lookup.
struct TestSigner: TokenSigner {
    static let rsa = try! SigningKey.generate(.rs256)
    static let ec = try! SigningKey.generate(.es256)
    static let foreign = try! SigningKey.generate(.rs256)
    /// The key opaque access tokens are sealed with, as the daemon derives one from its KEK.
    static let opaque = OpaqueAccessTokens(key: Array(repeating: 0x42, count: 32))

    func sign(claims: [String: JSONValue], algorithm: SigningKey.Algorithm, typ: String) throws -> String {
        let key = algorithm == .rs256 ? Self.rsa : Self.ec
        return try JWS.sign(claims: claims, key: key, kid: algorithm.rawValue + "-kid", typ: typ)
    }

    static let keys: @Sendable (String) -> (PublicKey, JWS.Algorithm)? = { kid in
        switch kid {
        case "RS256-kid": (rsa.publicKey, .rs256)
        case "ES256-kid": (ec.publicKey, .es256)
        default: nil
        }
    }
}

enum Fixture {
    static let issuer = "https://id.example.com/"
    static let epoch = Date(timeIntervalSince1970: 1_800_000_000)
    static let nativeCallback = "com.example.app://id.example.com/ios/com.example.app/callback"
    static let webCallback = "https://app.example.com/callback"
    static let secret = "s3cr:et%+x"
    static let secretHash = SecretDigest.hash(secret)
    /// RFC 7636 Appendix B.
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    static let native = Client(clientID: "native-app", name: "iOS", type: .native, callbacks: [nativeCallback, "http://127.0.0.1/cb"],
                               createdAt: epoch)
    static let web = Client(clientID: "web-app", name: "Web", type: .regular, secretHash: secretHash,
                            callbacks: [webCallback, "https://app.example.com/other"], createdAt: epoch)
    static let es256Web = Client(clientID: "es-app", name: "ES", type: .regular, secretHash: secretHash, idTokenAlgorithm: "ES256",
                                 callbacks: [webCallback], createdAt: epoch)
    static let postOnly = Client(clientID: "post-app", name: "Post", type: .regular, secretHash: secretHash,
                                 authMethods: [.clientSecretPost], callbacks: [webCallback], createdAt: epoch)
    static let m2m = Client(clientID: "m2m-app", name: "M2M", type: .m2m, secretHash: secretHash, callbacks: [webCallback], createdAt: epoch)
    /// An auth0-spa-js app: its origin is a callback and an Allowed Web Origin; a second callback's origin is not.
    static let spaCallback = "https://spa.example.com"
    static let spa = Client(clientID: "spa-app", name: "SPA", type: .spa,
                            callbacks: [spaCallback, "https://spa.example.com/callback", "https://other.example.com/cb"],
                            webOrigins: ["https://SPA.example.com:443"], createdAt: epoch)

    static let alice = User(userID: "user-alice", email: "alice@example.com", emailVerified: true, name: "Alice Liddell",
                            givenName: "Alice", familyName: "Liddell", nickname: "al", picture: "https://img.example.com/a.png",
                            createdAt: epoch, updatedAt: Date(timeIntervalSince1970: 1_700_000_000.123))
    static let bob = User(userID: "user-bob", email: "bob@example.com", createdAt: epoch)
    static let blocked = User(userID: "user-blocked", email: "x@example.com", blocked: true, createdAt: epoch)

    static func session(_ user: User = alice, authTime: Date = epoch, id: String = "sid-1") -> Session {
        Session(sessionID: id, cookieHash: "cookie-" + id, userID: user.userID, authTime: authTime, createdAt: authTime,
                lastSeenAt: authTime, expiresAt: authTime.addingTimeInterval(86_400))
    }

    static func clients() -> MemoryClientStore { MemoryClientStore([native, web, es256Web, postOnly, m2m, spa]) }
    static func users() -> MemoryUserStore { MemoryUserStore([alice, bob, blocked]) }

    /// Auth0.swift's /authorize parameters for the native client.
    static func nativeAuthorize(_ extra: [(String, String)] = [], dropping: Set<String> = []) -> [(String, String)] {
        let base: [(String, String)] = [
            ("client_id", native.clientID), ("response_type", "code"), ("redirect_uri", nativeCallback),
            ("state", "state-123"), ("nonce", "nonce-456"), ("scope", "openid profile email offline_access"),
            ("code_challenge", challenge), ("code_challenge_method", "S256"), ("auth0Client", "eyJuYW1lIjoiQXV0aDAuc3dpZnQifQ"),
        ]
        return base.filter { !dropping.contains($0.0) } + extra
    }

    /// An ID token as we would mint it, for id_token_hint tests.
    static func idToken(sub: String, aud: String = native.clientID, key: SigningKey = TestSigner.rsa, kid: String = "RS256-kid") -> String {
        try! JWS.sign(claims: ["iss": .string(issuer), "sub": .string(sub), "aud": .string(aud), "iat": .integer(1), "exp": .integer(2)],
                      key: key, kid: kid)
    }
}
