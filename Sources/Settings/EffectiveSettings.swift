/// Renders settings back to their config-file text, for `idp-admin config check`.
public enum EffectiveSettings {
    public static func describe(_ settings: Settings) -> [String: String] {
        [
            "listen": settings.listen.description,
            "issuer": settings.issuer.url,
            "database": settings.database,
            "maintenance_interval": ValueParsers.describe(settings.maintenanceInterval),
            "audit_retention": ValueParsers.describe(settings.auditRetention),
            "log_level": settings.logLevel.rawValue,
            "connection_name": settings.connectionName,
            "session_lifetime": ValueParsers.describe(settings.sessionLifetime),
            "login_max_failures": String(settings.loginMaxFailures),
            "login_lock_duration": ValueParsers.describe(settings.loginLockDuration),
            "login_max_failures_per_address": String(settings.loginMaxFailuresPerAddress),
            "login_ipv6_prefix": String(settings.loginIPv6Prefix),
            "login_account_failures": String(settings.loginAccountFailures),
            "login_account_max_delay": ValueParsers.describe(settings.loginAccountMaxDelay),
            "max_header_bytes": String(settings.maxHeaderBytes),
            "max_body_bytes": String(settings.maxBodyBytes),
            "max_buffered_body_bytes": String(settings.maxBufferedBodyBytes),
            "header_timeout": ValueParsers.describe(settings.headerTimeout),
            "body_timeout": ValueParsers.describe(settings.bodyTimeout),
            "idle_timeout": ValueParsers.describe(settings.idleTimeout),
            "max_connections": String(settings.maxConnections),
            "max_connections_per_client": String(settings.maxConnectionsPerClient),
            "worker_threads": String(settings.workerThreads),
            "drain_timeout": ValueParsers.describe(settings.drainTimeout),
            "gzip_min_bytes": String(settings.gzipMinBytes),
            "key_encryption_key": settings.keyEncryptionKey ?? "",
            "key_encryption_key_file": settings.effectiveKeyEncryptionKeyFile,
            "rsa_key_bits": String(settings.rsaKeyBits),
            "jwks_max_age": ValueParsers.describe(settings.jwksMaxAge),
            "trusted_proxies": settings.trustedProxies.description,
            "admin_listen": settings.adminListen?.description ?? "off",
            "log_file": settings.logFile ?? "",
        ]
    }
}
