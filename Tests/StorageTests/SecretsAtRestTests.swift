import Crypto
import Foundation
import Model
import Storage
import Testing
import TestSupport

/// negative-tests C14/L01: codes, cookies, secrets and passwords reach the database file only as digests or hashes.
@Suite struct SecretsAtRestTests {
    @Test func onlyDigestsAndHashesAreWrittenToTheDatabaseFiles() throws {
        let (store, directory) = try makeTestStore()
        defer { store.close() }
        _ = directory

        let secret = "client-secret-" + Random.token(bytes: 32)
        let code = "authorization-code-" + Random.token(bytes: 32)
        let cookie = "session-cookie-" + Random.token(bytes: 32)
        let password = "user-password-" + Random.token(bytes: 16)
        let transactionID = "login-transaction-" + Random.token(bytes: 32)
        let cheap = ScryptParameters(logN: 10, r: 8, p: 1)

        var client = Sample.client("secret-client", type: .regular)
        client.secretHash = try PasswordHash.hash(secret, parameters: cheap)
        try SQLiteClientStore(store: store).create(client)
        var user = Sample.user()
        user.passwordHash = try PasswordHash.hash(password, parameters: cheap)
        try SQLiteUserStore(store: store).create(user)
        try SQLiteAuthorizationCodeStore(store: store).insert(Sample.code(Digest.sha256Hex(Array(code.utf8)), client: client, user: user))
        try SQLiteSessionStore(store: store).create(Sample.session(user: user, cookieHash: Digest.sha256Hex(Array(cookie.utf8))))
        try SQLiteLoginTransactionStore(store: store).create(
            Sample.transaction(Digest.sha256Hex(Array(transactionID.utf8)), client: client))

        // Look at the WAL as written, then again after folding it into the main file.
        for _ in 0..<2 {
            let bytes = try databaseBytes(store.path)
            for plaintext in [secret, code, cookie, password, transactionID] {
                #expect(!contains(bytes, plaintext), "plaintext \(plaintext.prefix(20))… found in the database files")
            }
            // The probe works: the digest itself is there.
            #expect(contains(bytes, Digest.sha256Hex(Array(code.utf8))))
            try store.checkpoint()
        }
        #expect(try SQLiteClientStore(store: store).find(clientID: "secret-client").map { PasswordHash.verify(secret, against: $0.secretHash ?? "") } == true)
    }

    /// Apple's refresh tokens, on the identity and in the revocation queue, are sealed; each box
    /// opens only where it was sealed, and a finished revocation keeps no token at all.
    @Test func upstreamRefreshTokensAreSealedAndBoundToWhereTheyBelong() throws {
        let (store, directory) = try makeTestStore()
        defer { store.close() }
        _ = directory
        let key = [UInt8](repeating: 7, count: 32)
        let token = "apple-refresh-" + Random.token(bytes: 32)
        let user = Sample.user()
        try SQLiteConnectionStore(store: store, key: key).create(UpstreamConnection(name: "apple", strategy: .apple, clientID: "web", createdAt: Date()))
        try SQLiteIdentityStore(store: store).create(user, with: Identity(connection: "apple", subject: "s1", userID: user.userID, createdAt: Date()))
        try SQLiteIdentityStore(store: store).link(Identity(connection: "apple", subject: "s2", userID: user.userID, createdAt: Date()))
        let tokens = SQLiteUpstreamTokenStore(store: store, key: key)
        try tokens.setRefreshToken(UpstreamRefreshToken(token: token, clientID: "com.example.app"), connection: "apple", subject: "s1", at: Date())
        #expect(try tokens.refreshToken(connection: "apple", subject: "s1") == UpstreamRefreshToken(token: token, clientID: "com.example.app"))
        #expect(try tokens.refreshToken(connection: "apple", subject: "s2") == nil)
        // Moved onto another identity, the box does not open.
        try store.database.write { db in
            _ = try db.run("UPDATE identities SET sealed_refresh_token = (SELECT sealed_refresh_token FROM identities WHERE subject = 's1'), refresh_token_client_id = 'x' WHERE subject = 's2'")
        }
        #expect(throws: StorageError.self) { try tokens.refreshToken(connection: "apple", subject: "s2") }
        // Another key opens nothing.
        #expect(throws: StorageError.self) { try SQLiteUpstreamTokenStore(store: store, key: [UInt8](repeating: 8, count: 32)).refreshToken(connection: "apple", subject: "s1") }
        #expect(throws: StorageError.notFound("identity")) {
            try tokens.setRefreshToken(UpstreamRefreshToken(token: token, clientID: "c"), connection: "apple", subject: "nobody", at: Date())
        }

        let queue = SQLiteUpstreamRevocationQueue(store: store, key: key)
        try queue.enqueue(UpstreamRefreshToken(token: token, clientID: "com.example.app"), connection: "apple", at: Date())
        for _ in 0..<2 {
            #expect(!contains(try databaseBytes(store.path), token))
            try store.checkpoint()
        }
        let now = Date()
        let claimed = try queue.claimDue(at: now, limit: 10, lease: 60)
        #expect(claimed.map(\.token) == [token] && claimed.first?.attempts == 1)
        #expect(try queue.claimDue(at: now, limit: 10, lease: 60).isEmpty)  // claimed until the lease ends
        try queue.markDone(claimed[0].id, at: now)
        let row = try store.database.read { try $0.queryOne("SELECT sealed_token IS NULL AS gone, status FROM upstream_revocations") }
        #expect(try row?.int("gone") == 1 && row?.string("status") == "done")
        // A queued box under another key fails at the claim instead of being sent.
        try SQLiteUpstreamRevocationQueue(store: store, key: [UInt8](repeating: 8, count: 32))
            .enqueue(UpstreamRefreshToken(token: token, clientID: "c"), connection: "apple", at: now)
        #expect(try queue.claimDue(at: now, limit: 10, lease: 60).isEmpty)
        #expect(try SQLiteUpstreamRevocationQueue.list(in: store, limit: 10).first?.status == .failed)
    }

    private func databaseBytes(_ path: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
            bytes += try [UInt8](Data(contentsOf: URL(fileURLWithPath: path + suffix)))
        }
        return bytes
    }

    private func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let pattern = Array(needle.utf8)
        guard !pattern.isEmpty, haystack.count >= pattern.count else { return false }
        var index = haystack.startIndex
        let last = haystack.count - pattern.count
        while index <= last {
            if haystack[index] == pattern[0], Array(haystack[index..<(index + pattern.count)]) == pattern { return true }
            index += 1
        }
        return false
    }
}
