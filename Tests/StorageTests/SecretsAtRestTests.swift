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
