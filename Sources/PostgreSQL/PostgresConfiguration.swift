import FoundationEssentials

/// Where and how to reach PostgreSQL: `postgresql://user@host:port/db?sslmode=verify-full`
/// (or `postgres://`), with the password kept out of the URL.
///
/// The password comes from a file (`database_password_file`) or `IDP_DATABASE_PASSWORD`,
/// so it is never in argv, a config file anyone can read, or a log line: `description`
/// prints the URL, which cannot hold one (a URL with a password is refused).
public struct PostgresConfiguration: Sendable, CustomStringConvertible {
    public let url: String
    let password: String?
    /// Each statement is cancelled by the server after this long (`statement_timeout`).
    public var statementTimeout: Duration
    /// Giving up on reaching the server after this long (`connect_timeout`, whole seconds, at least 2).
    public var connectTimeout: Duration
    /// At most this many connections from this process.
    public var maxConnections: Int
    /// How long a caller waits for a free connection when all are busy.
    public var checkoutTimeout: Duration

    /// Whether `text` names a PostgreSQL database rather than an SQLite file.
    public static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    public init(url: String, password: String?, statementTimeout: Duration = .seconds(5),
                connectTimeout: Duration = .seconds(5), maxConnections: Int = 10,
                checkoutTimeout: Duration = .seconds(5)) throws(PostgresError) {
        guard Self.isPostgresURL(url) else {
            throw .connection("database URL must start with postgresql:// or postgres://")
        }
        let afterScheme = url[url.index(after: url.firstIndex(of: "/")!)...].dropFirst()
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" }
        if let at = authority.lastIndex(of: "@"), authority[..<at].contains(":") {
            throw .connection("the database URL must not contain a password: use database_password_file or IDP_DATABASE_PASSWORD")
        }
        self.url = url
        self.password = password
        self.statementTimeout = statementTimeout
        self.connectTimeout = connectTimeout
        self.maxConnections = max(1, maxConnections)
        self.checkoutTimeout = checkoutTimeout
    }

    /// The password from `file` (first line, trailing newline dropped) or else from `environment["IDP_DATABASE_PASSWORD"]`.
    public static func password(file: String?, environment: [String: String]) throws(PostgresError) -> String? {
        if let file, !file.isEmpty {
            guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                throw .connection("cannot read database_password_file \(file)")
            }
            return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
        }
        return environment["IDP_DATABASE_PASSWORD"]
    }

    public var description: String { url }

    /// libpq keywords and values: the URL expands into its parts (`dbname` with `expand_dbname`),
    /// then the settings that must hold whatever the URL says.
    var connectionParameters: [(String, String)] {
        var parameters: [(String, String)] = [("dbname", url)]
        if let password { parameters.append(("password", password)) }
        parameters.append(("connect_timeout", String(max(2, connectTimeout.components.seconds))))
        parameters.append(("application_name", "gatehouse"))
        let milliseconds = statementTimeout.components.seconds * 1000 + statementTimeout.components.attoseconds / 1_000_000_000_000_000
        // A transaction left open by a stuck client must not hold row locks forever.
        parameters.append(("options", "-c statement_timeout=\(milliseconds) -c idle_in_transaction_session_timeout=\(max(milliseconds * 4, 10_000)) -c TimeZone=UTC"))
        parameters.append(("client_encoding", "UTF8"))
        return parameters
    }
}
