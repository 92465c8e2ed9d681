// swift-tools-version:6.0
// Gatehouse: a self-hosted OpenID Connect provider.
// Layers point down only (see README "Architecture"); scripts/check-layers enforces it in CI.
import PackageDescription

let package = Package(
    name: "Gatehouse",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "idp", targets: ["idp"]),
        .executable(name: "idp-admin", targets: ["idp-admin"]),
    ],
    targets: [
        // C libraries, each a module map over a shim header with the few inline helpers Swift cannot import.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCrypt", providers: [.apt(["libcrypt-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(name: "CLinux"),
        // libcurl and libpq are opened with dlopen when first needed, never linked (README "Memory and
        // start"): their headers (libcurl4-openssl-dev, libpq-dev) give the types, these C targets the calls.
        .target(name: "CLibraryLoader"),
        .target(name: "CCurlLoader", dependencies: ["CLibraryLoader"]),
        .target(name: "CLibPQLoader", dependencies: ["CLibraryLoader"]),

        // Building blocks with no knowledge of OAuth.
        .target(name: "Logging"),
        .target(name: "Settings", dependencies: ["Logging"]),
        .target(name: "Crypto", dependencies: ["COpenSSL", "CCrypt", "CArgon2"]),
        .target(name: "JOSE", dependencies: ["Crypto"]),
        // The SQL the record stores speak (values, rows, the connection protocols), and its two backends.
        .target(name: "SQL"),
        .target(name: "SQLite", dependencies: ["CSQLite", "SQL"]),
        .target(name: "PostgreSQL", dependencies: ["CLibPQLoader", "SQL"]),
        .target(name: "HTTP", dependencies: ["CLinux", "CZlib", "Logging"]),
        .target(name: "Mail", dependencies: ["CCurlLoader", "Settings"]),

        // The identity provider.
        .target(name: "Model"),
        .target(name: "Storage", dependencies: ["Model", "SQL", "SQLite", "PostgreSQL", "Crypto", "Logging", "Settings"]),
        .target(name: "OIDC", dependencies: ["Model", "JOSE", "Crypto"]),
        .target(name: "KeyManagement", dependencies: ["Storage", "JOSE", "Crypto", "Settings", "Model", "Logging"]),
        .target(name: "Server", dependencies: ["CCurlLoader", "HTTP", "OIDC", "Storage", "KeyManagement", "JOSE", "Crypto", "Settings", "Logging", "Mail"]),
        .target(name: "Admin", dependencies: ["Storage", "KeyManagement", "JOSE", "Crypto", "Settings", "Model", "Logging", "OIDC", "Mail"]),
        .executableTarget(name: "idp", dependencies: ["Server", "Settings", "Logging"]),
        .executableTarget(name: "idp-admin", dependencies: ["Admin", "Settings"]),
        // Micro-benchmarks driven by scripts/bench (never timed in unit tests).
        .executableTarget(name: "bench", dependencies: ["Crypto", "JOSE", "SQLite", "Storage", "Model", "OIDC"]),

        // Tests.
        .target(name: "TestSupport", dependencies: ["Model", "Storage", "SQLite", "PostgreSQL", "Settings", "Server", "HTTP", "Logging", "CLinux"], path: "Tests/TestSupport"),
        .testTarget(name: "LoggingTests", dependencies: ["Logging"]),
        .testTarget(name: "MailTests", dependencies: ["Mail", "Settings", "TestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP"]),
        .testTarget(name: "BenchTests", dependencies: ["bench", "SQLite", "TestSupport"]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite"]),
        .testTarget(name: "PostgreSQLTests", dependencies: ["PostgreSQL", "SQL", "TestSupport"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "Model", "OIDC", "TestSupport"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto"]),
        .testTarget(name: "JOSETests", dependencies: ["JOSE", "Crypto"]),
        .testTarget(name: "SettingsTests", dependencies: ["Settings"]),
        .testTarget(name: "KeyManagementTests", dependencies: ["KeyManagement", "TestSupport"]),
        .testTarget(name: "ServerTests", dependencies: ["Server", "HTTP", "Mail", "TestSupport"]),
        .testTarget(name: "AdminTests", dependencies: ["Admin", "OIDC", "TestSupport"]),
        .testTarget(name: "WebTests", dependencies: ["Server", "HTTP", "OIDC", "Model", "Settings", "TestSupport"]),
        .testTarget(name: "OIDCTests", dependencies: ["OIDC", "Model", "JOSE", "Crypto", "Storage", "TestSupport"]),
        .testTarget(name: "ProductionTests", dependencies: ["Server", "HTTP", "Settings", "Logging", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
