/// One schema change, normally generated from `Migrations/NNNN_name.sql`.
public struct Migration: Sendable, Equatable {
    /// 1, 2, 3…: the order of application, with no gaps.
    public let version: Int
    /// The part of the file name after the version, e.g. `initial`.
    public let name: String
    /// The script, run inside the migration's transaction; it must not BEGIN or COMMIT itself.
    public let sql: String
    /// Lowercase hex SHA-256 of the file, recorded when applied so later edits are caught.
    public let checksum: String

    public init(version: Int, name: String, sql: String, checksum: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = checksum
    }

    /// `0001_initial`: how people refer to it.
    public var identifier: String {
        let digits = String(version)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "_" + name
    }

    /// `0001_initial.sql`: the source file, for error messages.
    public var fileName: String { identifier + ".sql" }
}

/// Whether a known migration has been applied, and when.
public struct MigrationStatus: Sendable, Equatable {
    public let migration: Migration
    public let applied: Bool
    /// ISO 8601 UTC, as recorded in `schema_migrations.applied_at`.
    public let appliedAt: String?

    package init(migration: Migration, applied: Bool, appliedAt: String?) {
        self.migration = migration
        self.applied = applied
        self.appliedAt = appliedAt
    }
}
