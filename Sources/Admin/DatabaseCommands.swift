import Foundation
import SQLite
import Storage

/// `idp-admin db migrate | status | check | backup PATH`.
enum DatabaseCommands {
    static let all = [migrate, status, check, backup]

    static let migrate = Command(
        ["db", "migrate"],
        summary: "Create the database if needed and apply pending migrations (idp also does this at startup).",
        usage: "db migrate [--json]",
        run: { invocation in
            let path = try invocation.settings().database
            let database = try open(path, mustExist: false)
            defer { database.close() }
            let applied = try mapErrors { try Migrator(EmbeddedMigrations.all, database: database).migrate() }
            let names = EmbeddedMigrations.all.filter { applied.contains($0.version) }.map(\.identifier)
            return Output(json: ["database": path, "applied": names],
                          text: names.isEmpty ? "\(path): up to date" : "\(path): applied \(names.joined(separator: ", "))")
        })

    static let status = Command(
        ["db", "status"],
        summary: "List the migrations this binary knows and whether each is applied.",
        usage: "db status [--json]",
        run: { invocation in
            let path = try invocation.settings().database
            let database = try open(path, mustExist: true)
            defer { database.close() }
            let rows = try mapErrors { try Migrator(EmbeddedMigrations.all, database: database).status() }
            return Output.table(["MIGRATION", "APPLIED_AT"],
                                rows.map { [$0.migration.identifier, $0.appliedAt ?? "pending"] },
                                json: rows.map { ["migration": $0.migration.identifier, "applied": $0.applied, "applied_at": $0.appliedAt as Any] })
        })

    static let check = Command(
        ["db", "check"],
        summary: "Run SQLite's integrity_check and verify the applied migrations match this binary.",
        usage: "db check [--json]",
        details: "Exits 1 when the database is damaged, a migration was changed after it was applied,\nor the schema is newer than this binary.",
        run: { invocation in
            let path = try invocation.settings().database
            let database = try open(path, mustExist: true)
            defer { database.close() }
            let integrity = try mapErrors { try database.integrityCheck() }
            var problems = integrity == ["ok"] ? [] : integrity.map { "integrity: \($0)" }
            do {
                try Migrator(EmbeddedMigrations.all, database: database).verify()
            } catch {
                problems.append("migrations: \(error)")
            }
            guard problems.isEmpty else { throw AdminError.failed("\(path): " + problems.joined(separator: "; ")) }
            return Output(json: ["database": path, "integrity": "ok", "migrations": "ok"], text: "\(path): integrity ok, migrations ok")
        })

    static let backup = Command(
        ["db", "backup"],
        summary: "Copy the live database to PATH with SQLite's online backup API (safe while idp runs).",
        usage: "db backup PATH [--json]",
        details: "Refuses to overwrite an existing file. The copy is consistent even under writes; copying\nthe .sqlite3 file with cp is not (it misses the -wal file). Back up the key-encryption key\n(key_encryption_key_file) separately: the signing keys in the copy are encrypted with it.",
        positionals: 1...1,
        run: { invocation in
            let destination = invocation.arguments.positionals[0]
            guard !FileManager.default.fileExists(atPath: destination) else {
                throw AdminError.failed("\(destination) already exists; choose a new path")
            }
            let path = try invocation.settings().database
            let database = try open(path, mustExist: true)
            defer { database.close() }
            try mapErrors { try database.backup(to: destination) }
            let copy = try mapErrors { try Database(path: destination, readers: 1) }
            defer { copy.close() }
            let integrity = try mapErrors { try copy.integrityCheck() }
            guard integrity == ["ok"] else { throw AdminError.failed("the backup at \(destination) failed its integrity check") }
            try invocation.audit("db.backup", details: ["path": destination])
            return Output(json: ["database": path, "backup": destination, "integrity": "ok"], text: "backed up \(path) to \(destination) (integrity ok)")
        })

    private static func open(_ path: String, mustExist: Bool) throws -> Database {
        if mustExist { try requireExists(path) }
        return try mapErrors { try Database(path: path) }
    }

    /// Commands that read an existing database say how to create one instead of creating it.
    static func requireExists(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw AdminError.failed("database \(path) does not exist yet; idp creates it on first start (or run idp-admin db migrate)")
        }
    }

    /// SQLite and storage errors as the operator sees them; admin errors pass through.
    static func mapErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as AdminError {
            throw error
        } catch {
            throw AdminError.failed(String(describing: error))
        }
    }
}
