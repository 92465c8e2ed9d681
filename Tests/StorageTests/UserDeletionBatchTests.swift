import Foundation
import Model
import SQLite
import Storage
import Testing
import TestSupport

/// `users delete` of a user with more refresh tokens than one transaction may delete: several
/// short write transactions, every token gone and remembered, the user last.
@Suite struct UserDeletionBatchTests {
    @Test(arguments: TestBackend.available) func aUserWithManyTokensIsDeletedInBatches(_ backend: TestBackend) throws {
        let stores = try RefreshStores(backend == .sqlite ? .sqlite : .postgresql)
        let store: any GatehouseStorage = backend == .sqlite ? try #require(stores.store) : try #require(stores.postgres)
        let perFamily = SQLiteUserStore.deletionBatch * 2 / 3
        for family in 0..<3 {
            try stores.family("grant-\(family)", session: nil)
            try store.records.sql.write { connection in
                for generation in 0..<perFamily {
                    _ = try connection.run(
                        """
                        INSERT INTO refresh_tokens (grant_id, generation, token_hash, client_id, user_id, scope, issued_at, expires_at,
                            last_used_at, found_by_hash)
                        VALUES (?, ?, ?, ?, ?, 'openid', 1800000000, ?, 1800000000, 0)
                        """,
                        [.text("grant-\(family)"), .integer(Int64(generation)), .text("hash-\(family)-\(generation)"),
                         .text(stores.client.clientID), .text(stores.user.userID),
                         // One family already past its lifetime: not worth remembering.
                         .integer(family == 2 ? 1_000_000_000 : 1_900_000_000)])
                }
            }
        }
        let holds = try SQLiteUserStore(store: store).delete(userID: stores.user.userID)
        // 3·perFamily tokens at most `deletionBatch` a transaction (fewer when one runs out of
        // `deletionBatchTime`), the grants, then the user's own.
        #expect(holds.transactions >= (3 * perFamily) / SQLiteUserStore.deletionBatch + 3)
        let counts = try store.records.sql.read { connection in
            (try connection.queryOne("SELECT count(*) FROM refresh_tokens")?.int(0),
             try connection.queryOne("SELECT count(*) FROM deleted_user_refresh_tokens")?.int(0),
             try connection.queryOne("SELECT count(*) FROM users")?.int(0),
             try connection.queryOne("SELECT count(*) FROM grants")?.int(0))
        }
        #expect(counts.0 == 0 && counts.1 == 2 * perFamily && counts.2 == 0 && counts.3 == 0)
        #expect(try SQLiteRefreshTokenStore(store: store).belongedToDeletedUser(tokenHash: "hash-0-1"))
        #expect(try !SQLiteRefreshTokenStore(store: store).belongedToDeletedUser(tokenHash: "hash-2-1"))
    }

    /// One-row families: the user's grants go in batches, each live family remembered by its
    /// grant (`RefreshTokenKey.tombstone`), so its tokens, at any generation, answer "deleted user".
    @Test func aUserWithManyFamiliesIsDeletedInBatches() throws {
        let stores = try RefreshStores(.sqlite)
        let store = try #require(stores.store)
        let families = SQLiteUserStore.deletionBatch + 20
        try store.database.write { connection in
            for family in 0..<families {
                _ = try connection.run(
                    """
                    INSERT INTO grants (grant_id, client_id, user_id, scope, created_at, refresh_generation, refresh_salt, refresh_issued_at,
                        refresh_expires_at)
                    VALUES (?1, ?2, ?3, 'openid', 1800000000, 7, x'00', 1800000000, ?4)
                    """, [.text("grant-\(family)"), .text(stores.client.clientID), .text(stores.user.userID),
                          .integer(family == 0 ? 1_000_000_000 : 1_900_000_000)])
            }
        }
        let holds = try SQLiteUserStore(store: store).delete(userID: stores.user.userID)
        #expect(holds.transactions >= 4)
        let counts = try store.database.read { connection in
            (try connection.queryOne("SELECT count(*) FROM grants WHERE refresh_salt IS NOT NULL")?.int(0),
             try connection.queryOne("SELECT count(*) FROM deleted_user_refresh_tokens")?.int(0),
             try connection.queryOne("SELECT count(*) FROM grants")?.int(0))
        }
        #expect(counts.0 == 0 && counts.1 == families - 1 && counts.2 == 0)
        let tokens = SQLiteRefreshTokenStore(store: store)
        #expect(try tokens.belongedToDeletedUser(tokenHash: RefreshTokenKey.family(grantID: "grant-5", generation: 7).tombstone))
        #expect(try !tokens.belongedToDeletedUser(tokenHash: RefreshTokenKey.family(grantID: "grant-0", generation: 7).tombstone),
                "past its lifetime: not worth remembering")
    }

    @Test func anUnknownUserIsNotFoundAndNothingChanges() throws {
        let stores = try RefreshStores(.sqlite)
        #expect(throws: StorageError.self) { try SQLiteUserStore(store: try #require(stores.store)).delete(userID: "auth0|nobody") }
        #expect(try stores.users.find(userID: stores.user.userID) != nil)
    }
}
