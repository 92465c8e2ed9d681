/// The judgements `doctor` makes about a PostgreSQL database, as pure functions of what it
/// found, so each failing case is tested without a misbehaving server.
enum PostgresDoctorVerdicts {
    typealias Check = DoctorCommand.Check

    /// The oldest major version the migrations are written for (identity columns, `EXECUTE FUNCTION`, …).
    static let oldestServer = 13

    /// `server_version_num` (e.g. 150008) and `server_version` ("15.8 (Debian 15.8-0+deb12u1)").
    static func server(versionNumber: Int, version: String) -> Check {
        let major = versionNumber / 10_000
        if major < oldestServer {
            return Check(name: "database_server", verdict: .fail,
                         message: "PostgreSQL \(version) is older than \(oldestServer): upgrade the server (Debian 12 ships 15)")
        }
        return Check(name: "database_server", verdict: .ok, message: "PostgreSQL \(version)")
    }

    /// Whether the session is encrypted, and whether libpq checks the server's name (`sslmode`).
    static func tls(host: String, sslMode: String?, inUse: Bool, cipher: String?) -> Check {
        let mode = sslMode ?? "prefer"
        let local = host.isEmpty || host.hasPrefix("/") || host == "localhost" || host == "::1" || host.hasPrefix("127.")
        switch (inUse, mode) {
        case (true, "verify-full"):
            return Check(name: "database_tls", verdict: .ok, message: "TLS (\(cipher ?? "?")), server certificate and host name verified (sslmode=verify-full)")
        case (true, _):
            return Check(name: "database_tls", verdict: local ? .ok : .warn,
                         message: "TLS (\(cipher ?? "?")) but sslmode=\(mode) does not verify the host name: anyone on the path can pose as the server; set sslmode=verify-full (and sslrootcert)")
        case (false, _) where local:
            return Check(name: "database_tls", verdict: .ok, message: "no TLS, on loopback or a unix socket (\(host.isEmpty ? "default socket" : host)): nothing crosses a network")
        case (false, _):
            return Check(name: "database_tls", verdict: .fail,
                         message: "no TLS to \(host) (sslmode=\(mode)): passwords and tokens cross the network in clear; enable ssl on the server and set sslmode=verify-full")
        }
    }

    /// The schema as the binary sees it: `newest` applied version (nil: no schema yet), `binary` its own.
    static func schema(newest: Int?, binary: Int, problem: String?) -> Check {
        if let problem { return Check(name: "migrations", verdict: .fail, message: problem) }
        guard let newest else {
            return Check(name: "migrations", verdict: .warn, message: "no Gatehouse schema yet: idp creates it on first start (or run idp-admin db copy / db migrate)")
        }
        if newest < binary {
            return Check(name: "migrations", verdict: .warn, message: "schema version \(newest), this binary's is \(binary): idp applies the rest at its next start (nodes wait for each other)")
        }
        return Check(name: "migrations", verdict: .ok, message: "schema version \(newest), matching this binary")
    }

    /// One node's pool against what the server allows: several nodes must fit together.
    static func pool(size: Int, statementTimeout: String, serverMax: Int, reserved: Int, inUse: Int) -> Check {
        let available = serverMax - reserved
        let message = "pool \(size) per node, statement timeout \(statementTimeout); the server allows \(available) (\(inUse) in use now)"
        if size > available {
            return Check(name: "database_pool", verdict: .fail, message: message + ": database_pool_size is more than the server allows; lower it or raise max_connections")
        }
        if size * 3 > available {
            return Check(name: "database_pool", verdict: .warn, message: message + ": three nodes would not fit; lower database_pool_size or raise max_connections")
        }
        return Check(name: "database_pool", verdict: .ok, message: message)
    }

    /// A connection failure with the likely fix; libpq's own message is kept (it never holds the password).
    static func connection(url: String, error: String) -> Check {
        let lower = error.lowercased()
        let hint: String
        if lower.contains("password authentication failed") || lower.contains("no password supplied") {
            hint = "check database_password_file (first line) or IDP_DATABASE_PASSWORD, and the role's password"
        } else if lower.contains("does not exist") {
            hint = "create the database and role first (createuser, createdb -O ROLE DB)"
        } else if lower.contains("connection refused") || lower.contains("no such file") {
            hint = "is PostgreSQL running and listening there (listen_addresses, port)?"
        } else if lower.contains("timeout") || lower.contains("timed out") {
            hint = "a firewall or the wrong host: nothing answered"
        } else if lower.contains("certificate") || lower.contains("ssl") {
            hint = "the TLS setup: sslrootcert must hold the server's CA, and the URL's host must be in its certificate"
        } else if lower.contains("pg_hba") {
            hint = "the server's pg_hba.conf does not let this host and role in"
        } else {
            hint = "see the message above"
        }
        return Check(name: "database_connection", verdict: .fail, message: "cannot connect to \(url): \(error) — \(hint)")
    }
}
