import Foundation
import SQLite
import Storage

/// `idp-admin db init | migrate | status | check | backup PATH`.
enum DatabaseCommands {
    static let all = [initialize, migrate, status, check, backup]

    static let initialize = Command(
        ["db", "init"],
        summary: "Create a new database at the configured path and migrate it (the only command that creates one).",
        usage: "db init [--json]",
        details: """
            Refuses when a file is already there. The directory is created if needed (mode 0700). idp also creates
            its database on first start; every other idp-admin command refuses a missing one, so a command run from
            the wrong directory or with the wrong settings cannot quietly work on a new, empty database.
            """,
        run: { invocation in
            if try invocation.settings().isPostgreSQL { return try PostgresDatabaseCommands.initialize(invocation) }
            let path = try invocation.settings().database
            guard !FileManager.default.fileExists(atPath: path) else {
                throw AdminError.failed("\(absolute(path)) already exists; db init only creates a new database (see db migrate)")
            }
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                try mapErrors { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                                       attributes: [.posixPermissions: 0o700]) }
            }
            let database = try mapErrors { try Database(path: path) }
            defer { database.close() }
            let applied = try mapErrors { try Migrator(EmbeddedMigrations.all, database: database).migrate() }
            return Output(json: ["database": absolute(path), "created": true, "migrations_applied": applied.count],
                          text: "created \(absolute(path)) (\(applied.count) migrations applied)")
        })

    static let migrate = Command(
        ["db", "migrate"],
        summary: "Apply pending migrations to the existing database (idp also does this at startup).",
        usage: "db migrate [--json]",
        run: { invocation in
            if try invocation.settings().isPostgreSQL { return try PostgresDatabaseCommands.migrate(invocation) }
            let path = try invocation.settings().database
            try invocation.requireDatabase()
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
            if try invocation.settings().isPostgreSQL { return try PostgresDatabaseCommands.status(invocation) }
            let path = try invocation.settings().database
            try invocation.requireDatabase()
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
            if try invocation.settings().isPostgreSQL { return try PostgresDatabaseCommands.check(invocation) }
            let path = try invocation.settings().database
            try invocation.requireDatabase()
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
        details: """
            Refuses to overwrite an existing file, and says so when the target directory is missing or not
            writable. The copy is consistent even under writes; copying the .sqlite3 file with cp is not (it
            misses the -wal file). Back up the key-encryption key (key_encryption_key_file) separately: the
            signing keys in the copy are encrypted with it.
            To restore: stop idp, move the damaged database and its -wal/-shm files aside, copy the backup to
            the database path (with its owner and mode 0600), put the matching KEK back, start idp, run
            `idp-admin db check`.
            """,
        positionals: 1...1,
        run: { invocation in
            if try invocation.settings().isPostgreSQL { return try PostgresDatabaseCommands.backup(invocation) }
            let destination = invocation.arguments.positionals[0]
            guard !FileManager.default.fileExists(atPath: destination) else {
                throw AdminError.failed("\(destination) already exists; choose a new path")
            }
            let directory = (absolute(destination) as NSString).deletingLastPathComponent
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw AdminError.failed("the directory \(directory) does not exist; create it first (mkdir -p -m 0700 \(directory))")
            }
            guard access(directory, W_OK) == 0 else {
                throw AdminError.failed("the directory \(directory) is not writable by this user (uid \(geteuid()))")
            }
            let path = try invocation.settings().database
            try invocation.requireDatabase()
            let database = try open(path, mustExist: true)
            defer { database.close() }
            // Pages copied of pages in all, with rate and time left, on a terminal; the steps share one snapshot.
            var progress: Progress?
            try mapErrors {
                try database.backup(to: destination) { copied, total in
                    if progress == nil { progress = invocation.progress("backing up \(absolute(path)): pages", total: total) }
                    progress?.advance(by: copied - (progress?.done ?? 0))
                }
            }
            progress?.finish()
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
            throw AdminError.noDatabase("database \(absolute(path)) does not exist yet; idp creates it on first start (or run idp-admin db init)")
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
