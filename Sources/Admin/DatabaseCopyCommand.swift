import Foundation
import PostgreSQL
import SQLite
import Storage

/// `idp-admin db copy --to postgresql://…`: moves a deployment from SQLite to PostgreSQL without
/// signing anyone out (README "Running several nodes").
enum DatabaseCopyCommand {
    static let command = Command(
        ["db", "copy"],
        summary: "Copy the configured SQLite database into an empty PostgreSQL database (keys, apps, users, sessions, live tokens).",
        usage: "db copy --to postgresql://USER@HOST:PORT/DB[?sslmode=verify-full] [--password-file FILE] [--json]",
        details: """
            Creates the schema in the target (PostgreSQL migrations), then copies every table in foreign-key order,
            in batches, inside one PostgreSQL transaction read from one SQLite snapshot, and checks each table's row
            count before committing. On any failure nothing is committed; the schema stays, its tables empty, and the
            same command can simply be run again. Refuses a target that holds rows or tables that are not Gatehouse's,
            and an SQLite database whose schema is not this binary's (run `db migrate` first).
            Expired codes, refresh tokens, sessions no row refers to, and the like are left behind; the counts per
            table say how many. Everything else — signing keys, applications, users, identities, sessions, grants,
            live refresh tokens, audit events, the mail queue — is copied as it is, so nobody is signed out: point the
            nodes at the target with `database = postgresql://…` and the SAME key-encryption key (the signing keys
            and sealed secrets stay encrypted with it). Stop idp first, or writes made during the copy are not in it.
            The password comes from --password-file FILE (first line) or IDP_DATABASE_PASSWORD, never the URL or argv.
            """,
        valueFlags: ["--to", "--password-file"],
        run: { invocation in
            guard let url = invocation.arguments.value("--to"), !url.isEmpty else {
                throw AdminError.usage("db copy needs --to postgresql://USER@HOST:PORT/DB")
            }
            let path = try invocation.settings().database
            guard !PostgresConfiguration.isPostgresURL(path) else {
                throw AdminError.failed("db copy reads an SQLite database, but `database` is already \(path)")
            }
            try invocation.requireDatabase()
            let configuration = try DatabaseCommands.mapErrors {
                let password = try PostgresConfiguration.password(file: invocation.arguments.value("--password-file"),
                                                                  environment: invocation.environment)
                return try PostgresConfiguration(url: url, password: password, statementTimeout: .seconds(60))
            }
            let source = try DatabaseCommands.mapErrors { try Database(path: path, readers: 1) }
            defer { source.close() }
            let target = try DatabaseCommands.mapErrors { try PostgresDatabase(configuration) }
            defer { target.close() }
            var copier = DatabaseCopier(source: source, target: target, now: Int64(Date().timeIntervalSince1970))
            let progress = invocation.progress("copying \(absolute(path)) to \(configuration): tables", total: nil)
            copier.onTable = { _ in progress.advance(by: 1) }
            let reports = try DatabaseCommands.mapErrors { try copier.run() }
            progress.finish()
            try invocation.audit("db.copy", details: ["to": configuration.description])
            let total = reports.reduce(0) { $0 + $1.copied }
            let table = Output.table(
                ["TABLE", "SOURCE", "SKIPPED", "COPIED"],
                reports.map { [$0.table, String($0.source), String($0.skipped), String($0.copied)] },
                json: ["target": configuration.description, "verified": true,
                       "tables": reports.map { ["table": $0.table, "source": $0.source, "skipped": $0.skipped, "copied": $0.copied] }])
            return Output(json: table.json.value, text: table.text + "\ncopied \(total) rows to \(configuration); row counts verified")
        })
}
