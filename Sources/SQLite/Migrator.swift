/// Brings a database's schema up to the binary's list of migrations.
///
/// Each pending migration runs in its own `BEGIN IMMEDIATE` transaction together with its
/// `schema_migrations` row and `PRAGMA user_version`, so a migration that fails or is
/// killed midway leaves nothing behind and a rerun starts it afresh.
public struct Migrator: Sendable {
    public let migrations: [Migration]
    public let database: Database

    static let createTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            checksum TEXT NOT NULL,
            applied_at TEXT NOT NULL
        )
        """

    public init(_ migrations: [Migration], database: Database) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.database = database
    }

    /// The newest version the binary knows (0 with no migrations).
    public var binaryVersion: Int { migrations.last?.version ?? 0 }

    /// Applies every pending migration in order and returns the versions applied (empty when up to date).
    @discardableResult
    public func migrate() throws -> [Int] {
        try validate()
        var applied: [Int] = []
        for migration in migrations {
            // Checked again inside each transaction: another process may be migrating too.
            let didApply = try database.write { connection -> Bool in
                try connection.execute(Self.createTable)
                let recorded = try Self.applied(connection)
                try check(recorded, userVersion: Self.userVersion(connection))
                if recorded[migration.version] != nil { return false }
                do {
                    try connection.execute(migration.sql)
                } catch let error as SQLiteError {
                    throw MigrationError.failed(version: migration.version, name: migration.name, error: error)
                }
                try connection.run(
                    "INSERT INTO schema_migrations (version, name, checksum, applied_at) "
                        + "VALUES (?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                    [.integer(Int64(migration.version)), .text(migration.name), .text(migration.checksum)])
                // PRAGMA takes no bindings; the version is an Int, so formatting it is safe.
                try connection.execute("PRAGMA user_version = \(migration.version)")
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        if migrations.isEmpty {
            // Still refuse a database from a newer binary, even with nothing to apply.
            try database.read { connection in
                try check(Self.tableExists(connection) ? Self.applied(connection) : [:],
                          userVersion: Self.userVersion(connection))
            }
        }
        return applied
    }

    /// Every known migration with whether (and when) it was applied.
    public func status() throws -> [MigrationStatus] {
        let recorded = try database.read { connection in
            try Self.tableExists(connection) ? Self.applied(connection) : [:]
        }
        return migrations.map { migration in
            let record = recorded[migration.version]
            return MigrationStatus(migration: migration, applied: record != nil, appliedAt: record?.appliedAt)
        }
    }

    /// Checks, without changing anything, that every applied migration matches the binary's
    /// and that the database is not newer than the binary.
    public func verify() throws {
        try validate()
        let (recorded, userVersion) = try database.read { connection in
            (try Self.tableExists(connection) ? Self.applied(connection) : [:],
             try connection.queryOne("PRAGMA user_version")?.int(0) ?? 0)
        }
        try check(recorded, userVersion: userVersion)
    }

    /// Refuses duplicate versions and gaps in the binary's list.
    public func validate() throws(MigrationError) {
        var expected = 1
        for (index, migration) in migrations.enumerated() {
            if index > 0 && migrations[index - 1].version == migration.version {
                throw .duplicateVersion(version: migration.version,
                                        files: [migrations[index - 1].fileName, migration.fileName])
            }
            if migration.version != expected {
                throw .versionGap(missing: expected, before: migration.fileName)
            }
            expected += 1
        }
    }

    private func check(_ recorded: [Int: AppliedRecord], userVersion: Int) throws(MigrationError) {
        let databaseVersion = max(recorded.keys.max() ?? 0, userVersion)
        if databaseVersion > binaryVersion {
            throw .databaseNewer(databaseVersion: databaseVersion, binaryVersion: binaryVersion)
        }
        for migration in migrations {
            guard let record = recorded[migration.version] else { continue }
            if record.checksum != migration.checksum || record.name != migration.name {
                throw .changedMigration(version: migration.version, name: migration.name,
                                        appliedChecksum: record.checksum, binaryChecksum: migration.checksum)
            }
        }
    }

    private struct AppliedRecord {
        let name: String
        let checksum: String
        let appliedAt: String
    }

    private static func applied(_ connection: Connection) throws -> [Int: AppliedRecord] {
        var records: [Int: AppliedRecord] = [:]
        for row in try connection.query("SELECT version, name, checksum, applied_at FROM schema_migrations") {
            records[try row.int("version")] = AppliedRecord(
                name: try row.string("name"), checksum: try row.string("checksum"),
                appliedAt: try row.string("applied_at"))
        }
        return records
    }

    private static func tableExists(_ connection: Connection) throws -> Bool {
        try connection.queryOne(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'") != nil
    }

    private static func userVersion(_ connection: Connection) throws -> Int {
        try connection.queryOne("PRAGMA user_version")?.int(0) ?? 0
    }
}
