import FoundationEssentials
import Model
import SQLite

/// The one-row refresh-token families, inside the caller's transaction. A family is its grant's
/// `refresh_*` columns (migration 0019; a table of its own from migration 0017 until then).
///
/// A family knows only its current generation, so a token at generation g reads it as: g is the
/// current one (live unless the grant is revoked), g is older (rotated, to g + 1, at the last
/// rotation or before: the reuse rule only needs the newest rotation's time, as any older token's
/// successor was itself rotated), or g is ahead (unknown). Client, user and scope are the grant's.
enum SQLiteRefreshFamilies {
    /// The grant's row with its family (none when `generation` is NULL), under the family's column
    /// names, so the refresh grant's lookups get token and grant from one row (`SQLiteGrantStore.grant(_:)`).
    static let columns = """
        refresh_generation AS generation, refresh_salt AS salt, refresh_issued_at AS issued_at,
        refresh_expires_at AS expires_at, refresh_rotated_at AS rotated_at, \(SQLiteGrantStore.columns)
        """
    static let select = "SELECT \(columns) FROM grants WHERE grant_id = ?"

    static func token(at position: RefreshTokenKey.Position, on connection: any SQLConnection) throws -> RefreshToken? {
        guard let row = try connection.queryOne(select, [.text(position.grantID)]) else { return nil }
        return try token(at: position.generation, of: row)
    }

    /// The token at `generation` of the family in `row`; nil for a grant without a one-row family.
    static func token(at generation: Int, of row: Row) throws -> RefreshToken? {
        guard let current = try row.get("generation", as: Int?.self), generation >= 0, generation <= current else { return nil }
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

    /// Starts the grant's one-row family, its live token at `token.generation` (0 for a first
    /// token, more for an older token's successor). Throws `.alreadyExists` when the grant already
    /// has a family, `.notFound` when there is no such grant.
    static func insert(_ token: RefreshToken, into connection: any SQLConnection) throws {
        guard let salt = token.familySalt else { return }
        let started = try connection.run(
            """
            UPDATE grants SET refresh_generation = ?2, refresh_salt = ?3, refresh_issued_at = ?4, refresh_expires_at = ?5,
                refresh_rotated_at = NULL
            WHERE grant_id = ?1 AND refresh_salt IS NULL
            """,
            [.text(token.grantID), .integer(Int64(token.generation ?? 0)), .blob(salt), SQLValue(date: token.issuedAt),
             SQLValue(date: token.expiresAt)])
        guard started == 0 else { return }
        guard try connection.queryOne("SELECT 1 FROM grants WHERE grant_id = ?", [.text(token.grantID)]) != nil else {
            throw StorageError.notFound("grant \(token.grantID)")
        }
        throw StorageError.alreadyExists("refresh-token family of grant \(token.grantID)")
    }

    /// The rotation: the grant's row as it now is (current generation `position.generation + 1`,
    /// columns as in `select`) if generation `position.generation` was current and the grant
    /// live, else nil. Only unindexed columns change: one page of the grants table is written.
    static func advance(_ position: RefreshTokenKey.Position, at time: Date, on connection: any SQLConnection) throws -> Row? {
        try connection.queryOne(rotation, [SQLValue(date: time), .text(position.grantID), .integer(Int64(position.generation))])
    }

    static let rotation = """
        UPDATE grants SET refresh_generation = ?3 + 1, refresh_rotated_at = ?1
        WHERE grant_id = ?2 AND refresh_generation = ?3 AND revoked_at IS NULL
        RETURNING \(columns)
        """
}
