import Logging

/// The daemon's effective configuration, after the file, `IDP_*` variables and defaults.
public struct Settings: Sendable, Equatable {
    public var listen: ListenTarget = .tcp(host: "127.0.0.1", port: 8080)
    public var issuer: Issuer = Settings.defaultIssuer(for: .tcp(host: "127.0.0.1", port: 8080))!
    /// An SQLite file path, or a `postgresql://` / `postgres://` URL without a password (`isPostgreSQL`).
    public var database: String = "data/idp.sqlite3"
    /// PostgreSQL's password: `database_password` (`IDP_DATABASE_PASSWORD`) wins over the file's first line.
    public var databasePasswordFile: String?
    public var databasePassword: String?
    /// PostgreSQL connections per process, and the server-side limit on one statement.
    public var databasePoolSize: Int = 10
    public var databaseStatementTimeout: Duration = .seconds(5)
    /// How often the background purge runs (it also runs at start); zero turns it off.
    public var maintenanceInterval: Duration = .seconds(60)
    /// Audit events older than this are purged.
    public var auditRetention: Duration = .seconds(30 * 86_400)
    public var logLevel: LogLevel = .info
    /// The user database's name: the `realm` of the password-realm grant (Auth0's default name).
    public var connectionName: String = "Username-Password-Authentication"
    /// How long a browser sign-in (SSO) session lasts.
    public var sessionLifetime: Duration = .seconds(7 * 86_400)
    public var maxHeaderBytes: Int = 16_384
    public var maxBodyBytes: Int = 1_048_576
    /// Request body bytes all connections may hold at once (bodies arriving, and bodies with handlers).
    public var maxBufferedBodyBytes: Int = 64 << 20
    public var headerTimeout: Duration = .seconds(10)
    public var bodyTimeout: Duration = .seconds(30)
    public var idleTimeout: Duration = .seconds(60)
    public var maxConnections: Int = 4096
    /// Connections from one peer address at most; 0 is no limit. Behind a proxy the peer is the proxy.
    public var maxConnectionsPerClient: Int = 64
    public var workerThreads: Int = 8
    public var drainTimeout: Duration = .seconds(10)
    public var gzipMinBytes: Int = 1024
    /// Base64 of 32 bytes; when nil, `keyEncryptionKeyFile` holds the key.
    public var keyEncryptionKey: String?
    /// When nil, the database path plus `.kek`.
    public var keyEncryptionKeyFile: String?
    public var rsaKeyBits: Int = 2048
    public var jwksMaxAge: Duration = .seconds(300)
    /// Peers whose forwarded headers are believed; empty trusts nobody.
    public var trustedProxies: TrustedProxyList = .none
    /// The metrics/health listener; nil means off.
    public var adminListen: ListenTarget?
    /// Append logs here instead of stderr; reopened on SIGHUP.
    public var logFile: String?
    /// Brute-force protection of the login form and password grants (negative-tests G02–G08).
    public var loginMaxFailures: Int = 10
    public var loginLockDuration: Duration = .seconds(15 * 60)
    public var loginMaxFailuresPerAddress: Int = 100
    public var loginIPv6Prefix: Int = 64
    public var loginAccountFailures: Int = 30
    public var loginAccountMaxDelay: Duration = .seconds(300)
    /// Auth0's password strength level: none, low, fair, good or excellent (README "Passwords").
    public var passwordPolicy: String = "fair"
    /// Earlier passwords a new one may not repeat; 0: no history.
    public var passwordHistory: Int = 0
    /// Known-breached and common passwords, one per line; a missing file leaves the built-in few.
    public var passwordBlocklist: String = "/usr/share/john/password.lst"
    /// A password reset ends the user's sessions and refresh tokens.
    public var passwordResetEndsSessions: Bool = true
    /// How long an emailed code (verification, reset, passwordless) stays good.
    public var codeLifetime: Duration = .seconds(600)
    /// How recent a login must be for the user to delete their own account.
    public var accountDeletionMaxAge: Duration = .seconds(600)
    /// A directory of `<tag>.strings` files overriding or adding page texts; nil: the shipped texts only.
    public var localesDir: String?
    /// Wrong tries after which an emailed code dies.
    public var codeMaxAttempts: Int = 5
    /// Email delivery (README "Email"); see `emailDelivery` for the combined view.
    public var emailFrom: String?
    public var smtpURL: SMTPURL?
    public var smtpUsername: String?
    public var smtpPasswordFile: String?
    /// `IDP_SMTP_PASSWORD`; a secret, so better from the environment than the file.
    public var smtpPassword: String?
    /// A CA bundle that verifies the SMTP server instead of the system's (a private CA).
    public var smtpCAFile: String?
    public var sendmailCommand: [String]?
    public var emailTemplates: String?
    public var emailMaxAge: Duration = .seconds(86_400)

    /// Whether `database` names a PostgreSQL server rather than an SQLite file.
    public var isPostgreSQL: Bool { ValueParsers.isPostgresURL(database) }

    /// The file holding the key-encryption key when it is not given inline.
    public var effectiveKeyEncryptionKeyFile: String { keyEncryptionKeyFile ?? database + ".kek" }

    public init() {}

    /// The issuer used when none is configured: the TCP listen address over http.
    /// Binding all interfaces gives no usable host name, so those use 127.0.0.1.
    static func defaultIssuer(for listen: ListenTarget) -> Issuer? {
        guard case .tcp(let host, let port) = listen else { return nil }
        let visibleHost: String
        switch host {
        case "0.0.0.0", "": visibleHost = "127.0.0.1"
        case "::": visibleHost = "[::1]"
        default: visibleHost = host.contains(":") ? "[\(host)]" : host
        }
        return try? Issuer.parse("http://\(visibleHost):\(port)/").get()
    }
}
