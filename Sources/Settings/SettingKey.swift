/// One configuration key: its name, default, help text and how to apply a value.
public struct SettingKey: Sendable {
    public let name: String
    public let defaultText: String
    public let help: String
    /// Whether `idp-admin config check` masks the value.
    public let isSecret: Bool
    let apply: @Sendable (inout Settings, String) -> ParseFailure?

    /// The environment variable that overrides this key.
    public var environmentName: String { "IDP_" + name.uppercased() }

    init<Value>(_ name: String, default defaultText: String, help: String, secret: Bool = false,
                parse: @escaping @Sendable (String) -> Result<Value, ParseFailure>,
                store: WritableKeyPath<Settings, Value> & Sendable) {
        self.name = name
        self.defaultText = defaultText
        self.help = help
        self.isSecret = secret
        self.apply = { settings, text in
            switch parse(text) {
            case .success(let value):
                settings[keyPath: store] = value
                return nil
            case .failure(let failure):
                return failure
            }
        }
    }
}

extension SettingKey {
    /// Every key the daemon and `idp-admin` accept, in the order `Config/idp.conf` documents them.
    public static let all: [SettingKey] = [
        SettingKey("listen", default: "127.0.0.1:8080",
                   help: "Where to accept HTTP: host:port (IPv4, [IPv6]) or unix:/path for an nginx upstream.",
                   parse: ValueParsers.listen, store: \.listen),
        SettingKey("issuer", default: "http://<listen>/",
                   help: "Public base URL ending in /; every emitted URL and the iss claim come from it, routes are served under its path.",
                   parse: ValueParsers.issuer, store: \.issuer),
        SettingKey("database", default: "data/idp.sqlite3",
                   help: "Path of the SQLite database file (relative to the working directory unless absolute), or postgresql://user@host/db.",
                   parse: ValueParsers.database, store: \.database),
        SettingKey("database_password_file", default: "(unset)",
                   help: "PostgreSQL: file whose first line is the database password; or set IDP_DATABASE_PASSWORD.",
                   parse: { ValueParsers.path($0).map(Optional.some) }, store: \.databasePasswordFile),
        SettingKey("database_password", default: "(unset)",
                   help: "PostgreSQL: the database password; set it as IDP_DATABASE_PASSWORD, never in a shared file.",
                   secret: true, parse: { ValueParsers.nonEmpty($0).map(Optional.some) }, store: \.databasePassword),
        SettingKey("database_pool_size", default: "10",
                   help: "PostgreSQL: at most this many connections from one process.",
                   parse: { ValueParsers.integer($0, in: 1...200) }, store: \.databasePoolSize),
        SettingKey("database_statement_timeout", default: "5s",
                   help: "PostgreSQL: the server cancels a statement that runs longer (the request then gets 503).",
                   parse: { ValueParsers.duration($0, in: .milliseconds(100)...(.seconds(600))) }, store: \.databaseStatementTimeout),
        SettingKey("maintenance_interval", default: "1m",
                   help: "How often expired rows are purged and their space given back (also at start); 0 turns it off.",
                   parse: { ValueParsers.duration($0, in: .zero...(.seconds(86_400))) }, store: \.maintenanceInterval),
        SettingKey("audit_retention", default: "30d", help: "Audit events older than this are purged.",
                   parse: { ValueParsers.duration($0, in: .seconds(60)...(.seconds(3650 * 86_400))) }, store: \.auditRetention),
        SettingKey("log_level", default: "info", help: "debug, info, warning or error.",
                   parse: ValueParsers.logLevel, store: \.logLevel),
        SettingKey("connection_name", default: "Username-Password-Authentication",
                   help: "Name of the user database, the realm the password-realm grant must name (Auth0's default).",
                   parse: ValueParsers.connectionName, store: \.connectionName),
        SettingKey("session_lifetime", default: "7d",
                   help: "How long a browser sign-in session lasts; within it, /authorize signs in without the form.",
                   parse: { ValueParsers.duration($0, in: .seconds(300)...(.seconds(90 * 86_400))) }, store: \.sessionLifetime),
        SettingKey("login_max_failures", default: "10",
                   help: "Failed sign-ins for one email from one address before that pair is locked for login_lock_duration.",
                   parse: { ValueParsers.integer($0, in: 1...10_000) }, store: \.loginMaxFailures),
        SettingKey("login_lock_duration", default: "15m", help: "How long a locked email+address pair, or a locked address, stays locked.",
                   parse: { ValueParsers.duration($0, in: .seconds(1)...(.seconds(86_400))) }, store: \.loginLockDuration),
        SettingKey("login_max_failures_per_address", default: "100",
                   help: "Failed sign-ins from one address (any emails) within an hour before it gets 429; raise it behind carrier-grade NAT.",
                   parse: { ValueParsers.integer($0, in: 1...1_000_000) }, store: \.loginMaxFailuresPerAddress),
        SettingKey("login_ipv6_prefix", default: "64", help: "IPv6 addresses count as one address per prefix of this many bits.",
                   parse: { ValueParsers.integer($0, in: 32...128) }, store: \.loginIPv6Prefix),
        SettingKey("login_account_failures", default: "30",
                   help: "Failed sign-ins for one account from any addresses before each further attempt must wait (doubling).",
                   parse: { ValueParsers.integer($0, in: 1...1_000_000) }, store: \.loginAccountFailures),
        SettingKey("login_account_max_delay", default: "5m", help: "The longest wait between attempts on an account under attack.",
                   parse: { ValueParsers.duration($0, in: .seconds(1)...(.seconds(86_400))) }, store: \.loginAccountMaxDelay),
        SettingKey("password_policy", default: "fair",
                   help: "Strength a chosen password must have: none, low, fair, good or excellent (Auth0's levels).",
                   parse: { ValueParsers.oneOf($0, ["none", "low", "fair", "good", "excellent"]) }, store: \.passwordPolicy),
        SettingKey("password_history", default: "0", help: "How many earlier passwords a new one may not repeat; 0 keeps no history.",
                   parse: { ValueParsers.integer($0, in: 0...24) }, store: \.passwordHistory),
        SettingKey("password_blocklist", default: "/usr/share/john/password.lst",
                   help: "File of known-breached and common passwords refused on signup and reset, one per line.",
                   parse: ValueParsers.path, store: \.passwordBlocklist),
        SettingKey("password_reset_ends_sessions", default: "on",
                   help: "Whether a password reset ends the user's other sessions and refresh tokens.",
                   parse: ValueParsers.flag, store: \.passwordResetEndsSessions),
        SettingKey("code_lifetime", default: "10m", help: "How long an emailed code (verification, reset, passwordless) stays good.",
                   parse: { ValueParsers.duration($0, in: .seconds(60)...(.seconds(3600))) }, store: \.codeLifetime),
        SettingKey("account_deletion_max_age", default: "10m",
                   help: "How recent a user's login must be for them to delete their own account (DELETE /api/v2/users/{id}).",
                   parse: { ValueParsers.duration($0, in: .seconds(60)...(.seconds(86_400))) }, store: \.accountDeletionMaxAge),
        SettingKey("locales_dir", default: "",
                   help: "Directory of <tag>.strings files that override or add page texts (Config/locales has the shipped ones).",
                   parse: { $0.isEmpty ? .success(nil) : ValueParsers.path($0).map { Optional($0) } }, store: \.localesDir),
        SettingKey("code_max_attempts", default: "5", help: "Wrong tries after which an emailed code dies.",
                   parse: { ValueParsers.integer($0, in: 1...20) }, store: \.codeMaxAttempts),
        SettingKey("max_header_bytes", default: "16KiB", help: "Largest request line plus headers (431 beyond).",
                   parse: { ValueParsers.byteSize($0, in: 1024...(1 << 20)) }, store: \.maxHeaderBytes),
        SettingKey("max_body_bytes", default: "1MiB", help: "Largest request body (413 beyond).",
                   parse: { ValueParsers.byteSize($0, in: 1024...(64 << 20)) }, store: \.maxBodyBytes),
        SettingKey("max_buffered_body_bytes", default: "64MiB",
                   help: "Request body bytes held across all connections; past it the largest bodies still arriving get 503.",
                   parse: { ValueParsers.byteSize($0, in: (1 << 20)...(1 << 40)) }, store: \.maxBufferedBodyBytes),
        SettingKey("header_timeout", default: "10s", help: "Time allowed to send the request line and headers (408 after).",
                   parse: { ValueParsers.duration($0, in: .milliseconds(100)...(.seconds(300))) }, store: \.headerTimeout),
        SettingKey("body_timeout", default: "30s", help: "Time allowed to send the request body (408 after).",
                   parse: { ValueParsers.duration($0, in: .milliseconds(100)...(.seconds(600))) }, store: \.bodyTimeout),
        SettingKey("idle_timeout", default: "60s", help: "How long an idle keep-alive connection stays open.",
                   parse: { ValueParsers.duration($0, in: .seconds(1)...(.seconds(3600))) }, store: \.idleTimeout),
        SettingKey("max_connections", default: "4096", help: "Open client connections at most; further ones are closed at once.",
                   parse: { ValueParsers.integer($0, in: 1...1_000_000) }, store: \.maxConnections),
        SettingKey("max_connections_per_client", default: "64",
                   help: "Connections from one peer address at most, further ones closed at once; 0 is off. Behind a proxy the peer is the proxy.",
                   parse: { ValueParsers.integer($0, in: 0...1_000_000) }, store: \.maxConnectionsPerClient),
        SettingKey("worker_threads", default: "8", help: "Threads running handlers that block on SQLite or cryptography.",
                   parse: { ValueParsers.integer($0, in: 1...256) }, store: \.workerThreads),
        SettingKey("drain_timeout", default: "10s", help: "On SIGTERM, how long in-flight requests may take to finish.",
                   parse: { ValueParsers.duration($0, in: .zero...(.seconds(600))) }, store: \.drainTimeout),
        SettingKey("gzip_min_bytes", default: "1KiB", help: "Smallest response body that is gzip-compressed when the client accepts it.",
                   parse: { ValueParsers.byteSize($0, in: 1...(64 << 20)) }, store: \.gzipMinBytes),
        SettingKey("key_encryption_key", default: "(unset)",
                   help: "Base64 of 32 random bytes that encrypt the signing keys at rest (AES-256-GCM); prefer the environment variable.",
                   secret: true, parse: ValueParsers.keyEncryptionKey, store: \.keyEncryptionKey),
        SettingKey("key_encryption_key_file", default: "<database>.kek",
                   help: "File holding the key-encryption key when key_encryption_key is unset; created with mode 0600 on first start.",
                   parse: { ValueParsers.path($0).map(Optional.some) }, store: \.keyEncryptionKeyFile),
        SettingKey("rsa_key_bits", default: "2048", help: "Size of new RSA signing keys: 2048, 3072 or 4096.",
                   parse: ValueParsers.rsaKeyBits, store: \.rsaKeyBits),
        SettingKey("jwks_max_age", default: "300s", help: "How long clients may cache /.well-known/jwks.json (Cache-Control max-age).",
                   parse: { ValueParsers.duration($0, in: .zero...(.seconds(86_400))) }, store: \.jwksMaxAge),
        SettingKey("trusted_proxies", default: "(empty)",
                   help: "Comma-separated proxy addresses/CIDRs (and `unix` for unix-socket peers) whose X-Forwarded-For/Forwarded headers are believed.",
                   parse: TrustedProxyList.parse, store: \.trustedProxies),
        SettingKey("admin_listen", default: "off",
                   help: "Listener for /metrics, /healthz and /readyz (host:port or unix:/path); off by default, never the public listener.",
                   parse: ValueParsers.adminListen, store: \.adminListen),
        SettingKey("log_file", default: "(stderr)",
                   help: "Append logs to this file instead of stderr; reopened on SIGHUP (logrotate).",
                   parse: { ValueParsers.path($0).map(Optional.some) }, store: \.logFile),
        SettingKey("email_from", default: "(unset)",
                   help: "The From of every message: no-reply@example.com or \"Example <no-reply@example.com>\"; required with a transport.",
                   parse: ValueParsers.emailFrom, store: \.emailFrom),
        SettingKey("smtp_url", default: "(unset)",
                   help: "smtp://host[:port] (STARTTLS, required unless the host is loopback; port 587) or smtps://host[:port] (implicit TLS; 465).",
                   parse: { SMTPURL.parse($0).map(Optional.some) }, store: \.smtpURL),
        SettingKey("smtp_username", default: "(unset)", help: "User name for SMTP AUTH.",
                   parse: { ValueParsers.nonEmpty($0).map(Optional.some) }, store: \.smtpUsername),
        SettingKey("smtp_password_file", default: "(unset)",
                   help: "File whose first line is the SMTP password (read at each use); or set IDP_SMTP_PASSWORD.",
                   parse: { ValueParsers.path($0).map(Optional.some) }, store: \.smtpPasswordFile),
        SettingKey("smtp_password", default: "(unset)",
                   help: "The SMTP password; set it as IDP_SMTP_PASSWORD, never in a shared file.",
                   secret: true, parse: { ValueParsers.nonEmpty($0).map(Optional.some) }, store: \.smtpPassword),
        SettingKey("smtp_ca_file", default: "(system CAs)",
                   help: "PEM CA bundle that verifies the SMTP server's certificate, for a private CA.",
                   parse: { ValueParsers.path($0).map(Optional.some) }, store: \.smtpCAFile),
        SettingKey("sendmail_command", default: "(unset)",
                   help: "Instead of SMTP: a program given each message on stdin, e.g. \"msmtp -t\" or \"/usr/sbin/sendmail -t\" (run without a shell).",
                   parse: ValueParsers.command, store: \.sendmailCommand),
        SettingKey("email_templates", default: "(embedded)",
                   help: "Directory of <locale>/<template>.{subject,txt,html} files that override or add to the embedded templates, file by file.",
                   parse: { ValueParsers.path($0).map(Optional.some) }, store: \.emailTemplates),
        SettingKey("email_max_age", default: "24h", help: "A message not delivered this long after it was queued is given up (marked failed).",
                   parse: { ValueParsers.duration($0, in: .seconds(60)...(.seconds(7 * 86_400))) }, store: \.emailMaxAge),
    ]

    public static func named(_ name: String) -> SettingKey? { all.first { $0.name == name } }
}
