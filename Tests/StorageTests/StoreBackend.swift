import Foundation
import Model
import SQLite
import Storage
import Testing
import TestSupport

/// Which implementation of the store protocols a conformance test runs against.
enum StoreBackend: String, CaseIterable, CustomTestStringConvertible {
    var testDescription: String { rawValue }

    case sqlite, memory, postgresql

    /// PostgreSQL unless `IDP_TEST_SKIP_POSTGRES=1` (then only SQLite and memory run).
    static var allCases: [StoreBackend] { PostgresCluster.isSkipped ? [.sqlite, .memory] : [.sqlite, .memory, .postgresql] }

    func make() throws -> StoreSet {
        switch self {
        case .sqlite:
            let (store, directory) = try makeTestStore()
            return StoreSet(
                clients: SQLiteClientStore(store: store), users: SQLiteUserStore(store: store),
                codes: SQLiteAuthorizationCodeStore(store: store), sessions: SQLiteSessionStore(store: store),
                grants: SQLiteGrantStore(store: store), transactions: SQLiteLoginTransactionStore(store: store),
                throttle: SQLiteLoginThrottleStore(store: store), signIns: SQLiteSignInStore(store: store),
                refreshTokens: SQLiteRefreshTokens(database: store.database), keepAlive: [store, directory])
        case .postgresql:
            // The same store implementations as SQLite, over the PostgreSQL seam.
            let store = try makeTestPostgresStore()
            return StoreSet(
                clients: SQLiteClientStore(store: store), users: SQLiteUserStore(store: store),
                codes: SQLiteAuthorizationCodeStore(store: store), sessions: SQLiteSessionStore(store: store),
                grants: SQLiteGrantStore(store: store), transactions: SQLiteLoginTransactionStore(store: store),
                throttle: SQLiteLoginThrottleStore(store: store), signIns: SQLiteSignInStore(store: store),
                refreshTokens: SQLiteRefreshTokens(database: store.database), keepAlive: [store])
        case .memory:
            let database = MemoryDatabase()
            let throttle = MemoryLoginThrottleStore()
            return StoreSet(
                clients: MemoryClientStore(database: database), users: MemoryUserStore(database: database),
                codes: MemoryAuthorizationCodeStore(database: database), sessions: MemorySessionStore(database: database),
                grants: MemoryGrantStore(database: database), transactions: MemoryLoginTransactionStore(database: database),
                throttle: throttle, signIns: MemorySignInStore(database: database, throttle: throttle),
                refreshTokens: MemoryRefreshTokens(database: database), keepAlive: [database])
        }
    }
}

/// One backend's stores, sharing one database so cascades are visible across them.
struct StoreSet {
    let clients: any ClientStore
    let users: any UserStore
    let codes: any AuthorizationCodeStore
    let sessions: any SessionStore
    let grants: any GrantStore
    let transactions: any LoginTransactionStore
    let throttle: any LoginThrottleStore
    let signIns: any SignInStore
    /// Seeds and inspects refresh tokens by grant alone, for the cascade tests (the refresh-token store
    /// protocol has its own suite, `RefreshTokenStoreTests`).
    let refreshTokens: any RefreshTokenProbe
    /// The temporary directory and store (or memory database) that must outlive the stores.
    let keepAlive: [AnyObject]
}

protocol RefreshTokenProbe {
    func add(hash: String, grant: Grant) throws
    func revokedAt(hash: String) throws -> Date?
    func exists(hash: String) throws -> Bool
}

struct SQLiteRefreshTokens: RefreshTokenProbe {
    let database: any SQLDatabase

    func add(hash: String, grant: Grant) throws {
        try database.write { connection in
            _ = try connection.run(
                """
                INSERT INTO refresh_tokens (token_hash, grant_id, client_id, user_id, scope, issued_at, expires_at, last_used_at,
                    generation)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, (SELECT COALESCE(MAX(generation) + 1, 0) FROM refresh_tokens WHERE grant_id = ?2))
                """,
                [.text(hash), .text(grant.grantID), .text(grant.clientID), .text(grant.userID ?? ""), .text(grant.scope),
                 .integer(1_800_000_000), .integer(1_900_000_000), .integer(1_800_000_000)])
        }
    }

    func revokedAt(hash: String) throws -> Date? {
        try database.read { connection in
            guard let row = try connection.queryOne("SELECT revoked_at FROM refresh_tokens WHERE token_hash = ?", [.text(hash)]),
                  let seconds = try row.get("revoked_at", as: Int64?.self) else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
    }

    func exists(hash: String) throws -> Bool {
        try database.read { try $0.queryOne("SELECT 1 FROM refresh_tokens WHERE token_hash = ?", [.text(hash)]) != nil }
    }
}

struct MemoryRefreshTokens: RefreshTokenProbe {
    let database: MemoryDatabase

    func add(hash: String, grant: Grant) throws { database.addRefreshToken(hash: hash, grantID: grant.grantID) }
    func revokedAt(hash: String) throws -> Date? { database.refreshTokenRevokedAt(hash: hash) }
    func exists(hash: String) throws -> Bool { database.hasRefreshToken(hash: hash) }
}

/// Records with whole-second times (SQLite stores Unix seconds).
enum Sample {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func client(_ id: String = "client-1", type: Client.ApplicationType = .native) -> Client {
        Client(clientID: id, name: "App \(id)", type: type, callbacks: ["com.example.app://cb", "https://example.com/cb", "http://127.0.0.1/cb"],
               logoutURLs: ["https://example.com/bye"], webOrigins: ["https://example.com", "https://app.example.com"],
               bundleID: "com.example.app", androidSHA256: ["AA:BB", "CC:DD"], createdAt: now)
    }

    static func user(_ id: String = "auth0|000000000000000000000001", email: String = "Alice@Example.com") -> User {
        User(userID: id, email: email, emailVerified: true, passwordHash: "$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA", name: "Alice",
             createdAt: now)
    }

    static func session(_ id: String = "sid-1", user: User, cookieHash: String = "cookie-hash-1", createdAt: Date = now) -> Session {
        Session(sessionID: id, cookieHash: cookieHash, userID: user.userID, authTime: createdAt, createdAt: createdAt,
                lastSeenAt: createdAt, expiresAt: createdAt + 86_400, deviceName: "iPhone", ip: "192.0.2.1")
    }

    static func code(_ hash: String = "code-hash-1", client: Client, user: User) -> AuthorizationCode {
        AuthorizationCode(codeHash: hash, clientID: client.clientID, userID: user.userID, sessionID: nil,
                          redirectURI: "com.example.app://cb", scope: "openid profile offline_access", nonce: "n-0S6",
                          codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", codeChallengeMethod: "S256",
                          authTime: now, createdAt: now, expiresAt: now + 60)
    }

    static func grant(_ id: String = "grant-1", client: Client, user: User?) -> Grant {
        Grant(grantID: id, clientID: client.clientID, userID: user?.userID, sessionID: nil, scope: "openid offline_access",
              authTime: now, createdAt: now)
    }

    static func transaction(_ idHash: String = "tx-hash-1", client: Client, expiresAt: Date = now + 600) -> LoginTransaction {
        LoginTransaction(idHash: idHash, clientID: client.clientID,
                         parameters: ["redirect_uri": "com.example.app://cb", "state": "xyz", "scope": "openid", "nonce": "n/ü"],
                         csrfHash: "csrf-hash", createdAt: now, expiresAt: expiresAt)
    }
}
