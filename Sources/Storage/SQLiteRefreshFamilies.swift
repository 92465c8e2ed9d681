import FoundationEssentials
import Model
import SQLite

/// The one-row refresh-token families of migration 0017, inside the caller's transaction.
///
/// A family row knows only its current generation, so a token at generation g reads it as: g is
/// the current one (live unless the grant is revoked), g is older (rotated, to g + 1, at the last
/// rotation or before: the reuse rule only needs the newest rotation's time, as any older token's
/// successor was itself rotated), or g is ahead (unknown). Client, user and scope are the grant's.
enum SQLiteRefreshFamilies {
    /// The family row with all of its grant's columns (no name is in both tables), so the refresh
    /// grant's lookups get token and grant from one statement (`SQLiteGrantStore.grant(_:)`).
    static let select = """
        SELECT f.generation, f.salt, f.issued_at, f.expires_at, f.rotated_at, g.grant_id, g.client_id, g.user_id,
            g.session_id, g.scope, g.audience, g.auth_time, g.created_at, g.revoked_at, g.revoke_reason
        FROM refresh_families f JOIN grants g ON g.grant_id = f.grant_id WHERE f.grant_id = ?
        """

    static func token(at position: RefreshTokenKey.Position, on connection: any SQLConnection) throws -> RefreshToken? {
        guard let row = try connection.queryOne(select, [.text(position.grantID)]) else { return nil }
        return try token(at: position.generation, of: row)
    }

    static func token(at generation: Int, of row: Row) throws -> RefreshToken? {
        let current = try row.int("generation")
        guard generation >= 0, generation <= current else { return nil }
        let grantID = try row.string("grant_id")
        let rotated = try row.optionalDate("rotated_at")
        let first = try row.date("issued_at")
        let lastIssued = rotated ?? first
        let isCurrent = generation == current
        return RefreshToken(
            tokenHash: RefreshTokenKey.name(grantID: grantID, generation: generation), grantID: grantID,
            clientID: try row.string("client_id"), userID: try row.optionalString("user_id") ?? "", scope: try row.string("scope"),
            issuedAt: isCurrent ? lastIssued : first, expiresAt: try row.date("expires_at"),
            lastUsedAt: lastIssued, rotatedAt: isCurrent ? nil : lastIssued,
            successorHash: isCurrent ? nil : RefreshTokenKey.name(grantID: grantID, generation: generation + 1),
            revokedAt: try row.optionalDate("revoked_at"), generation: generation, familySalt: try row.blob("salt"))
    }

    /// A new family row, its live token at `token.generation` (0 for a first token, more for an
    /// older token's successor). Throws on a family that already has its row.
    static func insert(_ token: RefreshToken, into connection: any SQLConnection) throws {
        guard let salt = token.familySalt else { return }
        _ = try connection.run(
            "INSERT INTO refresh_families (grant_id, generation, salt, issued_at, expires_at, rotated_at) VALUES (?, ?, ?, ?, ?, NULL)",
            [.text(token.grantID), .integer(Int64(token.generation ?? 0)), .blob(salt), SQLValue(date: token.issuedAt),
             SQLValue(date: token.expiresAt)])
    }

    /// The rotation: the family row as it now is (current generation `position.generation + 1`,
    /// with its grant's columns as in `select`) if generation `position.generation` was current and
    /// the grant live, else nil. Only unindexed columns change: one page of the family table is
    /// written. The grant's columns come from subqueries, as RETURNING may name only the table it updates.
    static func advance(_ position: RefreshTokenKey.Position, at time: Date, on connection: any SQLConnection) throws -> Row? {
        try connection.queryOne(
            """
            UPDATE refresh_families SET generation = ?3 + 1, rotated_at = ?1
            WHERE grant_id = ?2 AND generation = ?3 AND EXISTS (SELECT 1 FROM grants WHERE grant_id = ?2 AND revoked_at IS NULL)
            RETURNING generation, salt, issued_at, expires_at, rotated_at, grant_id,
                (SELECT client_id FROM grants WHERE grant_id = ?2) AS client_id,
                (SELECT user_id FROM grants WHERE grant_id = ?2) AS user_id,
                (SELECT scope FROM grants WHERE grant_id = ?2) AS scope,
                (SELECT revoked_at FROM grants WHERE grant_id = ?2) AS revoked_at
            """, [SQLValue(date: time), .text(position.grantID), .integer(Int64(position.generation))])
    }
}
