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
            "max_header_bytes": String(settings.maxHeaderBytes),
            "max_body_bytes": String(settings.maxBodyBytes),
            "header_timeout": ValueParsers.describe(settings.headerTimeout),
            "body_timeout": ValueParsers.describe(settings.bodyTimeout),
            "idle_timeout": ValueParsers.describe(settings.idleTimeout),
            "max_connections": String(settings.maxConnections),
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
