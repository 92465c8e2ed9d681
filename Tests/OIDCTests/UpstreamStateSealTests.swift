import Crypto
import Foundation
import Model
import Testing
@testable import OIDC

/// The pending upstream sign-in sealed into its own cookie (`UpstreamStateSeal`).
@Suite struct UpstreamStateSealTests {
    static let seal = UpstreamStateSeal(key: Array(repeating: 7, count: 32))
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let transaction = LoginTransaction(idHash: SecretDigest.hash("tx-1"), clientID: "app-1",
                                              parameters: ["redirect_uri": "https://app.example.com/cb", "state": "app-state"],
                                              csrfHash: "csrf-digest", createdAt: now, expiresAt: now.addingTimeInterval(900))
    static let pending = UpstreamPendingState(state: "st-1", nonce: "n-1", codeVerifier: String(repeating: "v", count: 43),
                                              connection: "corp", transactionID: "tx-1", transaction: transaction,
                                              expiresAt: now.addingTimeInterval(600))

    @Test func roundTrip() throws {
        let cookie = try #require(Self.seal.seal(Self.pending))
        #expect(Self.seal.open(cookie, now: Self.now) == Self.pending)
    }

    /// Nothing readable in the cookie. The values are long: a 3-character one ("n-1") turns up in
    /// a random 500-character base64url text about once in 500 runs.
    @Test func nothingInItIsReadable() throws {
        var transaction = Self.transaction
        transaction.idHash = SecretDigest.hash("transaction-id-0123456789")
        let pending = UpstreamPendingState(state: "state-value-0123456789", nonce: "nonce-value-0123456789",
                                           codeVerifier: String(repeating: "v", count: 43), connection: "connection-name-0123456789",
                                           transactionID: "transaction-id-0123456789", transaction: transaction,
                                           expiresAt: Self.now.addingTimeInterval(600))
        let cookie = try #require(Self.seal.seal(pending))
        #expect(Self.seal.open(cookie, now: Self.now) == pending)
        for secret in ["state-value", "nonce-value", "connection-name", "transaction-id", "app-state", "app.example.com", "vvvvvvvv"] {
            #expect(!cookie.contains(secret))
        }
    }

    @Test func expiredIsRefused() throws {
        let cookie = try #require(Self.seal.seal(Self.pending))
        #expect(Self.seal.open(cookie, now: Self.pending.expiresAt) == nil)
        #expect(Self.seal.open(cookie, now: Self.pending.expiresAt.addingTimeInterval(-1)) != nil)
    }

    @Test func anotherKeyCannotOpenIt() throws {
        let cookie = try #require(Self.seal.seal(Self.pending))
        #expect(UpstreamStateSeal(key: Array(repeating: 8, count: 32)).open(cookie, now: Self.now) == nil)
    }

    @Test func everyChangedCharacterIsRefused() throws {
        let cookie = Array(try #require(Self.seal.seal(Self.pending)))
        for index in stride(from: 0, to: cookie.count, by: 7) {
            var changed = cookie
            changed[index] = changed[index] == "A" ? "B" : "A"
            #expect(Self.seal.open(String(changed), now: Self.now) == nil)
        }
    }

    /// Under one key, a login transaction cookie is not a pending upstream state, nor the reverse.
    @Test func theTransactionCookieDoesNotOpenAsPendingState() throws {
        let key = Array(repeating: UInt8(7), count: 32)
        let transaction = LoginTransaction(idHash: "h", clientID: "app", parameters: ["state": "x"], csrfHash: "c",
                                           createdAt: Self.now, expiresAt: Self.now.addingTimeInterval(600))
        let transactionCookie = try #require(TransactionSeal(key: key).seal(transaction, id: "tx-1"))
        #expect(UpstreamStateSeal(key: key).open(transactionCookie, now: Self.now) == nil)
        let pendingCookie = try #require(UpstreamStateSeal(key: key).seal(Self.pending))
        #expect(TransactionSeal(key: key).open(pendingCookie) == nil)
    }

    @Test(arguments: ["", "not base64!", String(repeating: "A", count: 4000)]) func garbageIsRefused(cookie: String) {
        #expect(Self.seal.open(cookie, now: Self.now) == nil)
    }
}
