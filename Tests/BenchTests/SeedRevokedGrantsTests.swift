import Foundation
import SQLite
import Testing
@testable import bench

/// `bench seed` writes its grants revoked already, which the trigger of migration 0020 never sees:
/// the seed must remember them itself, or the scale rows would measure `/userinfo` against an
/// empty `revoked_grants` that no running daemon has.
@Suite("Seeded revocations")
struct SeedRevokedGrantsTests {
    @Test func everyRevokedUserGrantIsRemembered() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("seed.sqlite3").path
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
