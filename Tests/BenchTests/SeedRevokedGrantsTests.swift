import SQLite
import Testing
import TestSupport
@testable import bench

/// `bench seed` writes its grants revoked already, which the trigger of migration 0020 never sees:
/// the seed must remember them itself, or the scale rows would measure `/userinfo` against an
/// empty `revoked_grants` that no running daemon has.
@Suite("Seeded revocations")
struct SeedRevokedGrantsTests {
    @Test func everyRevokedUserGrantIsRemembered() throws {
        let directory = try TemporaryDirectory("gatehouse-seed")
        let path = directory.file("seed.sqlite3")
        try SeedBench.run(arguments: ["--users", "40", "--refresh-tokens", "400", "--sessions", "40", "--audit", "10", "--out", path])
        let connection = try Connection(path: path)
        defer { connection.close() }
        let revoked = try #require(try connection.queryOne(
            "SELECT count(*) FROM grants WHERE revoked_at IS NOT NULL AND user_id IS NOT NULL")?.int(0))
        #expect(revoked > 0, "the seed revokes some of its grants")
        let remembered = try connection.queryOne("""
            SELECT count(*) FROM revoked_grants r JOIN grants g ON g.grant_id = r.grant_id
            WHERE r.expires_at = g.revoked_at + 86400
            """)?.int(0)
        #expect(remembered == revoked)
        #expect(try connection.queryOne("SELECT count(*) FROM revoked_grants")?.int(0) == revoked)
    }
}
