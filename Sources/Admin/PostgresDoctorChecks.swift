import Foundation
import PostgreSQL
import Settings
import Storage

/// `doctor` on `database = postgresql://…`: connection, server version, TLS, schema and pool.
/// Read-only: it connects and asks, and never migrates.
enum PostgresDoctorChecks {
    typealias Check = DoctorCommand.Check

    /// The checks in order, and whether the schema matches this binary (the key checks need it).
    static func run(_ settings: Settings) -> (checks: [Check], schemaCurrent: Bool) {
        let configuration: PostgresConfiguration
        do {
            configuration = try StorageBackend.postgresConfiguration(settings)
        } catch {
            return ([Check(name: "database_connection", verdict: .fail, message: error.reason)], false)
        }
        let database: PostgresDatabase
        do {
            database = try PostgresDatabase(configuration)
        } catch let error where error.isLibraryUnavailable {
            return ([Check(name: "database_connection", verdict: .fail, message: error.message)], false)
        } catch {
            return ([PostgresDoctorVerdicts.connection(url: configuration.url, error: error.message)], false)
        }
        defer { database.close() }
        var checks = [Check(name: "database_connection", verdict: .ok, message: "\(configuration.url) answers")]
        do {
            let facts = try database.withReader { connection in
                try connection.queryOne("""
                    SELECT current_setting('server_version_num')::int AS number, current_setting('server_version') AS version,
                           current_setting('max_connections')::int AS max, current_setting('superuser_reserved_connections')::int AS reserved,
                           (SELECT count(*) FROM pg_stat_activity) AS in_use,
                           COALESCE((SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()), false) AS ssl,
                           (SELECT cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()) AS cipher,
                           to_regclass('schema_migrations') IS NOT NULL AS has_schema
                    """)
            }
            guard let facts else { throw PostgresError(sqlState: "XX000", message: "the server returned no row") }
            checks.append(PostgresDoctorVerdicts.server(versionNumber: try facts.int("number"), version: try facts.string("version")))
            let target = Self.target(of: configuration.url)
            checks.append(PostgresDoctorVerdicts.tls(host: target.host, sslMode: target.sslMode, inUse: try facts.bool("ssl"),
                                                     cipher: try facts.get("cipher", as: String?.self)))
            let migrator = PostgresMigrator(EmbeddedMigrations.postgresql, database: database)
            var newest: Int?
            var problem: String?
            if try facts.bool("has_schema") {
                newest = try database.withReader { try $0.queryOne("SELECT max(version) AS top FROM schema_migrations")?.get("top", as: Int?.self) }
                do { try migrator.verify() } catch { problem = String(describing: error) }
            }
            checks.append(PostgresDoctorVerdicts.schema(newest: newest, binary: migrator.binaryVersion, problem: problem))
            checks.append(PostgresDoctorVerdicts.pool(size: configuration.maxConnections, statementTimeout: Self.text(configuration.statementTimeout),
                                                      serverMax: try facts.int("max"), reserved: try facts.int("reserved"),
                                                      inUse: try facts.int("in_use")))
            return (checks, problem == nil && newest == migrator.binaryVersion)
        } catch {
            checks.append(Check(name: "database_server", verdict: .fail, message: "cannot read the server's settings: \(error)"))
            return (checks, false)
        }
    }

    /// The host (or socket directory) and `sslmode` a URL names, as libpq reads them.
    static func target(of url: String) -> (host: String, sslMode: String?) {
        let afterScheme = url.components(separatedBy: "://").dropFirst().joined(separator: "://")
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" }
        var hostPart = authority.split(separator: "@", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        if hostPart.hasPrefix("["), let close = hostPart.firstIndex(of: "]") {
            hostPart = String(hostPart[hostPart.index(after: hostPart.startIndex)..<close])
        } else if let colon = hostPart.lastIndex(of: ":") {
            hostPart = String(hostPart[..<colon])
        }
        var query: [String: String] = [:]
        if let mark = afterScheme.firstIndex(of: "?") {
            for pair in afterScheme[afterScheme.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                if parts.count == 2 { query[parts[0]] = parts[1] }
            }
        }
        return (query["host"] ?? hostPart, query["sslmode"])
    }

    static func text(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }
}
