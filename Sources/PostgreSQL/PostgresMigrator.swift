/// Brings a PostgreSQL database's schema up to the binary's migrations (`Migrations/postgresql`),
/// the way `Migrator` does for SQLite: in version order, each in its own transaction together
/// with its `schema_migrations` row, a changed migration or a schema newer than the binary refused.
///
/// Nodes started together must not migrate twice: the whole run holds a session-level advisory
/// lock, so the second node waits, then finds everything applied.
public struct PostgresMigrator: Sendable {
    public let migrations: [Migration]
    public let database: PostgresDatabase
    /// `pg_advisory_lock` key: "gatehouse" in ASCII, so it stays clear of other applications' keys.
    static let lockKey: Int64 = 0x6761_7465_686F_7573

    static let createTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version BIGINT PRIMARY KEY,
            name TEXT NOT NULL,
            checksum TEXT NOT NULL,
            applied_at TEXT NOT NULL
        )
        """

    public init(_ migrations: [Migration], database: PostgresDatabase) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.database = database
    }

    public var binaryVersion: Int { migrations.last?.version ?? 0 }

    /// Applies every pending migration and returns the versions applied (empty when up to date).
    @discardableResult
    public func migrate() throws -> [Int] {
        for (index, migration) in migrations.enumerated() where migration.version != index + 1 {
            throw PostgresMigrationError.versionGap(missing: index + 1, before: migration.fileName)
        }
        return try database.withConnection { connection in
            // A migration (or waiting for another node's) may take longer than a request's statement timeout.
            try connection.execute("SET statement_timeout = 0")
            try connection.run("SELECT pg_advisory_lock(?1)", [.integer(Self.lockKey)])
            defer {
                _ = try? connection.run("SELECT pg_advisory_unlock(?1)", [.integer(Self.lockKey)])
                try? connection.execute("RESET statement_timeout")
            }
            try connection.execute(Self.createTable)
            var applied: [Int] = []
            for migration in migrations {
                try connection.execute("BEGIN")
                do {
                    let recorded = try Self.applied(connection)
                    try check(recorded)
                    if recorded[migration.version] == nil {
                        do {
                            try connection.execute(migration.sql)
                        } catch let error as PostgresError {
                            throw PostgresMigrationError.failed(version: migration.version, name: migration.name, error: error)
                        }
                        try connection.run(
                            "INSERT INTO schema_migrations (version, name, checksum, applied_at) "
                                + "VALUES (?1, ?2, ?3, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'))",
                            [.integer(Int64(migration.version)), .text(migration.name), .text(migration.checksum)])
                        applied.append(migration.version)
                    }
                    try connection.execute("COMMIT")
                } catch {
                    if connection.isHealthy { try? connection.execute("ROLLBACK") }
                    throw error
                }
            }
            if migrations.isEmpty { try check(try Self.applied(connection)) }
            return applied
        }
    }

    /// Checks, without changing anything, that the applied migrations match and none is newer.
    public func verify() throws {
        let recorded = try database.read { connection in
            try connection.queryOne("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")?.bool("present") == true
                ? try Self.applied(connection) : [:]
        }
        try check(recorded)
    }

    private func check(_ recorded: [Int: (name: String, checksum: String)]) throws(PostgresMigrationError) {
        let newest = recorded.keys.max() ?? 0
        if newest > binaryVersion { throw .databaseNewer(databaseVersion: newest, binaryVersion: binaryVersion) }
        for migration in migrations {
            guard let record = recorded[migration.version] else { continue }
            if record.checksum != migration.checksum || record.name != migration.name {
                throw .changedMigration(version: migration.version, name: migration.name,
                                        appliedChecksum: record.checksum, binaryChecksum: migration.checksum)
            }
        }
    }

    private static func applied(_ connection: PostgresConnection) throws -> [Int: (name: String, checksum: String)] {
        var records: [Int: (name: String, checksum: String)] = [:]
        for row in try connection.query("SELECT version, name, checksum FROM schema_migrations") {
            records[try row.int("version")] = (try row.string("name"), try row.string("checksum"))
        }
        return records
    }
}

/// Why a PostgreSQL schema could not be brought up to date; every message names the migration.
public enum PostgresMigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    case changedMigration(version: Int, name: String, appliedChecksum: String, binaryChecksum: String)
    case databaseNewer(databaseVersion: Int, binaryVersion: Int)
    case versionGap(missing: Int, before: String)
    case failed(version: Int, name: String, error: PostgresError)

    public var description: String {
        switch self {
        case .changedMigration(let version, let name, let applied, let binary):
            "migration postgresql/\(Self.file(version, name)) was changed after it was applied (checksum \(applied) in database, \(binary) in the binary)"
        case .databaseNewer(let databaseVersion, let binaryVersion):
            "schema version \(databaseVersion) is newer than this binary (knows up to \(binaryVersion))"
        case .versionGap(let missing, let before):
            "PostgreSQL migration version \(missing) is missing (the next file is \(before))"
        case .failed(let version, let name, let error):
            "migration postgresql/\(Self.file(version, name)) failed and was rolled back: \(error)"
        }
    }

    private static func file(_ version: Int, _ name: String) -> String {
        Migration(version: version, name: name, sql: "", checksum: "").fileName
    }
}
