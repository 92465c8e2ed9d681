import FoundationEssentials
import Logging
import PostgreSQL
import Settings

/// The one place that opens the configured database: an SQLite file for a path, PostgreSQL for
/// a `postgresql://` or `postgres://` URL (README "PostgreSQL"). The daemon and every
/// `idp-admin` command open it here, so nothing else about them depends on the backend.
public enum StorageBackend {
    /// Opens and migrates the database `settings.database` names.
    ///
    /// PostgreSQL that is not reachable yet (a cluster still starting beside the daemon) is
    /// retried with backoff for up to `startupWait`, each failure logged with its reason; a
    /// refused password, a bad URL or a failed migration is not retried.
    public static func open(settings: Settings, logger: Logger? = nil, readers: Int = 4,
                            startupWait: Duration = .seconds(30)) throws(StorageBackendError) -> any GatehouseStorage {
        guard settings.isPostgreSQL else {
            do {
                return try Store(path: settings.database, readers: readers)
            } catch {
                throw StorageBackendError(location: settings.database, reason: error.description)
            }
        }
        let configuration = try postgresConfiguration(settings)
        let clock = ContinuousClock()
        let deadline = clock.now + startupWait
        var pause = Duration.milliseconds(250)
        while true {
            do {
                return try PostgresStore(configuration)
            } catch let failure {
                guard case .cannotConnect(_, let error) = failure, error.isConnectionFailure, clock.now + pause < deadline else {
                    throw StorageBackendError(location: configuration.url, reason: failure.description)
                }
                logger?.warning("database_unreachable", ["database": .string(configuration.url), "reason": .string(error.message),
                                                         "retry_in_ms": .int(Int(pause.components.seconds * 1000 + pause.components.attoseconds / 1_000_000_000_000_000))])
                Purger.sleep(pause)
                pause = min(pause * 2, .seconds(4))
            }
        }
    }

    /// The pool settings and password for `settings.database`, a PostgreSQL URL.
    /// `database_password` (`IDP_DATABASE_PASSWORD`) wins over `database_password_file`.
    public static func postgresConfiguration(_ settings: Settings) throws(StorageBackendError) -> PostgresConfiguration {
        do throws(PostgresError) {
            var password = settings.databasePassword
            if password == nil { password = try PostgresConfiguration.password(file: settings.databasePasswordFile, environment: [:]) }
            return try PostgresConfiguration(url: settings.database, password: password,
                                             statementTimeout: settings.databaseStatementTimeout,
                                             maxConnections: settings.databasePoolSize)
        } catch {
            throw StorageBackendError(location: settings.database, reason: error.message)
        }
    }
}

/// Why the configured database could not be opened, for the operator (never with a password).
public struct StorageBackendError: Error, Sendable, CustomStringConvertible {
    /// The path or URL from `database`.
    public let location: String
    public let reason: String

    public var description: String { reason }
}
