import Foundation
import PostgreSQL
import Settings
import SQL
import Storage

/// `db init | migrate | status | check | backup` when `database` is a PostgreSQL URL: the same
/// questions, answered by the server's schema under the migrator's advisory lock.
enum PostgresDatabaseCommands {
    /// A pool of one to the configured server, closed after `body`.
    private static func withDatabase<T>(_ invocation: Invocation, _ body: (PostgresDatabase) throws -> T) throws -> T {
        let settings = try invocation.settings()
        var configuration = try DatabaseCommands.mapErrors { try StorageBackend.postgresConfiguration(settings) }
        configuration.maxConnections = 1
        let database = try DatabaseCommands.mapErrors { try PostgresDatabase(configuration) }
        defer { database.close() }
        return try DatabaseCommands.mapErrors { try body(database) }
    }

    /// Applied versions and when, from `schema_migrations` (empty before the first migration).
    private static func applied(_ database: PostgresDatabase) throws -> [Int: String] {
        try database.read { connection in
            guard try connection.queryOne("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")?.bool("present") == true else {
                return [:]
            }
            var applied: [Int: String] = [:]
            for row in try connection.query("SELECT version, applied_at FROM schema_migrations") {
                applied[try row.int("version")] = try row.string("applied_at")
            }
            return applied
        }
    }

    static func initialize(_ invocation: Invocation) throws -> Output {
        let url = try invocation.settings().database
        return try withDatabase(invocation) { database in
            guard try applied(database).isEmpty else {
                throw AdminError.failed("\(url) already holds a Gatehouse schema; db init only creates a new one (see db migrate)")
            }
            let versions = try PostgresMigrator(EmbeddedMigrations.postgresql, database: database).migrate()
            return Output(json: ["database": url, "created": true, "migrations_applied": versions.count],
                          text: "created the schema in \(url) (\(versions.count) migrations applied)")
        }
    }

    static func migrate(_ invocation: Invocation) throws -> Output {
        let url = try invocation.settings().database
        return try withDatabase(invocation) { database in
            let versions = try PostgresMigrator(EmbeddedMigrations.postgresql, database: database).migrate()
            let names = EmbeddedMigrations.postgresql.filter { versions.contains($0.version) }.map(\.identifier)
            return Output(json: ["database": url, "applied": names],
                          text: names.isEmpty ? "\(url): up to date" : "\(url): applied \(names.joined(separator: ", "))")
        }
    }

    static func status(_ invocation: Invocation) throws -> Output {
        let applied: [Int: String] = try withDatabase(invocation) { try Self.applied($0) }
        let rows = EmbeddedMigrations.postgresql.map { ($0.identifier, applied[$0.version]) }
        return Output.table(["MIGRATION", "APPLIED_AT"], rows.map { [$0.0, $0.1 ?? "pending"] },
                            json: rows.map { ["migration": $0.0, "applied": $0.1 != nil, "applied_at": $0.1 as Any] })
    }

    /// The server keeps its own pages consistent (there is no integrity_check to run): the check is the schema's.
    static func check(_ invocation: Invocation) throws -> Output {
        let url = try invocation.settings().database
        do {
            try withDatabase(invocation) { try PostgresMigrator(EmbeddedMigrations.postgresql, database: $0).verify() }
        } catch let error as AdminError {
            throw error
        } catch {
            throw AdminError.failed("\(url): migrations: \(error)")
        }
        return Output(json: ["database": url, "integrity": "server", "migrations": "ok"], text: "\(url): migrations ok")
    }

    static func backup(_ invocation: Invocation) throws -> Output {
        throw AdminError.failed("db backup copies an SQLite file; back up PostgreSQL with pg_dump or the server's own backups "
            + "(and the key-encryption key separately: the signing keys in the database are encrypted with it)")
    }
}
