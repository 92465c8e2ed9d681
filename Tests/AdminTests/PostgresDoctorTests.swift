import Foundation
import PostgreSQL
import Storage
import Testing
import TestSupport
@testable import Admin

/// `doctor`'s PostgreSQL verdicts, one row per case, then against the test cluster.
@Suite struct PostgresDoctorVerdictTests {
    typealias Verdict = DoctorCommand.Check.Verdict

    @Test(arguments: [(120_017, Verdict.fail), (130_000, .ok), (150_008, .ok), (170_002, .ok)])
    func serverVersion(number: Int, expected: Verdict) {
        #expect(PostgresDoctorVerdicts.server(versionNumber: number, version: "\(number / 10_000).x").verdict == expected)
    }

    @Test(arguments: [
        // host, sslmode, TLS in use, expected, words the message must hold
        ("db.example.com", "verify-full", true, Verdict.ok, "host name verified"),
        ("db.example.com", "require", true, .warn, "does not verify the host name"),
        ("db.example.com", nil, true, .warn, "sslmode=prefer"),
        ("db.example.com", "disable", false, .fail, "in clear"),
        ("db.example.com", nil, false, .fail, "in clear"),
        ("127.0.0.1", "disable", false, .ok, "loopback"),
        ("/run/postgresql", nil, false, .ok, "unix socket"),
        ("localhost", "require", true, .ok, "does not verify"),
    ] as [(String, String?, Bool, Verdict, String)])
    func tls(host: String, mode: String?, inUse: Bool, expected: Verdict, words: String) {
        let check = PostgresDoctorVerdicts.tls(host: host, sslMode: mode, inUse: inUse, cipher: inUse ? "TLS_AES_256_GCM_SHA384" : nil)
        #expect(check.verdict == expected)
        #expect(check.message.contains(words), "\(check.message)")
    }

    @Test(arguments: [
        (nil, 16, nil, Verdict.warn, "no Gatehouse schema"),
        (12, 16, nil, .warn, "schema version 12, this binary's is 16"),
        (16, 16, nil, .ok, "matching"),
        (17, 16, "schema version 17 is newer than this binary", .fail, "newer"),
    ] as [(Int?, Int, String?, Verdict, String)])
    func schema(newest: Int?, binary: Int, problem: String?, expected: Verdict, words: String) {
        let check = PostgresDoctorVerdicts.schema(newest: newest, binary: binary, problem: problem)
        #expect(check.verdict == expected)
        #expect(check.message.contains(words), "\(check.message)")
    }

    @Test(arguments: [(10, 100, Verdict.ok), (40, 100, .warn), (98, 100, .fail)])
    func pool(size: Int, serverMax: Int, expected: Verdict) {
        let check = PostgresDoctorVerdicts.pool(size: size, statementTimeout: "5s", serverMax: serverMax, reserved: 3, inUse: 4)
        #expect(check.verdict == expected)
        #expect(check.message.contains("pool \(size) per node, statement timeout 5s; the server allows \(serverMax - 3) (4 in use now)"))
    }

    @Test(arguments: [
        ("FATAL:  password authentication failed for user \"gatehouse\"", "database_password_file"),
        ("FATAL:  database \"nope\" does not exist", "createdb"),
        ("connection to server at \"127.0.0.1\", port 1 failed: Connection refused", "listening"),
        ("timeout expired", "firewall"),
        ("SSL error: certificate verify failed", "sslrootcert"),
        ("FATAL:  no pg_hba.conf entry for host", "pg_hba.conf"),
    ])
    func connectionFailureSaysWhatToFix(error: String, hint: String) {
        let check = PostgresDoctorVerdicts.connection(url: "postgresql://u@h/d", error: error)
        #expect(check.verdict == .fail)
        #expect(check.message.contains(error) && check.message.contains(hint), "\(check.message)")
    }

    @Test(arguments: [
        ("postgresql://u@db.example.com:5432/g?sslmode=verify-full", "db.example.com", "verify-full"),
        ("postgres://db.example.com/g", "db.example.com", nil),
        ("postgresql://u@[::1]:5432/g?sslmode=disable", "::1", "disable"),
        ("postgresql://u@/g?host=%2Frun%2Fpostgresql", "/run/postgresql", nil),
    ] as [(String, String, String?)])
    func readsHostAndSSLModeFromTheURL(url: String, host: String, mode: String?) {
        let target = PostgresDoctorChecks.target(of: url)
        #expect(target.host == host)
        #expect(target.sslMode == mode)
    }
}

@Suite(.enabled(if: !PostgresCluster.isSkipped, "IDP_TEST_SKIP_POSTGRES=1"))
struct PostgresDoctorTests {
    let cluster: PostgresCluster
    let directory: TemporaryDirectory
    let passwordFile: String

    init() throws {
        cluster = try PostgresCluster.shared()
        directory = try TemporaryDirectory("doctor-pg")
        passwordFile = directory.file("pg-password")
        try Data((cluster.password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
    }

    func environment(_ url: String, passwordFile: String? = nil) -> [String: String] {
        ["IDP_DATABASE": url, "IDP_DATABASE_PASSWORD_FILE": passwordFile ?? self.passwordFile,
         "IDP_KEY_ENCRYPTION_KEY_FILE": directory.file("idp.kek"), "USER": "ops"]
    }

    func doctor(_ environment: [String: String]) throws -> (status: Int32, checks: [String: (verdict: String, message: String)]) {
        let result = AdminCLI.run(["doctor", "--json"], environment: environment, systemConfigPath: nil)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: String]],
                                "\(result.standardOutput) \(result.standardError)")
        #expect(!result.standardOutput.contains(cluster.password) && !result.standardError.contains(cluster.password))
        var checks: [String: (String, String)] = [:]
        for row in rows { checks[row["check"]!] = (row["verdict"]!, row["message"]!) }
        return (result.status, checks)
    }

    @Test func aMigratedDatabaseWithKeysPasses() throws {
        let url = cluster.url(database: try cluster.makeDatabase())
        let environment = environment(url)
        let rotated = AdminCLI.run(["keys", "rotate"], environment: environment, systemConfigPath: nil)
        #expect(rotated.status == 0, "\(rotated.standardError)")
        let (_, checks) = try doctor(environment)
        for name in ["database_connection", "database_server", "database_tls", "migrations", "signing_keys"] {
            #expect(checks[name]?.verdict == "ok", "\(name): \(checks[name]?.message ?? "missing")")
        }
        #expect(checks["database_tls"]?.message.contains("loopback") == true)
        #expect(checks["database_pool"]?.message.contains("pool 10 per node, statement timeout 5s") == true)
        #expect(checks["database_server"]?.message.hasPrefix("PostgreSQL 1") == true)
        #expect(checks["database_integrity"] == nil)
    }

    @Test func aWrongPasswordFailsTheConnectionCheck() throws {
        let wrong = directory.file("wrong")
        try Data("not-the-password\n".utf8).write(to: URL(fileURLWithPath: wrong))
        let (status, checks) = try doctor(environment(cluster.url(database: "postgres"), passwordFile: wrong))
        #expect(status == 1)
        #expect(checks["database_connection"]?.verdict == "fail")
        #expect(checks["database_connection"]?.message.contains("database_password_file") == true, "\(checks["database_connection"]?.message ?? "")")
        #expect(checks["migrations"] == nil)
    }

    @Test func aMissingDatabaseFailsTheConnectionCheck() throws {
        let (status, checks) = try doctor(environment(cluster.url(database: "no_such_database")))
        #expect(status == 1)
        #expect(checks["database_connection"]?.message.contains("createdb") == true, "\(checks["database_connection"]?.message ?? "")")
    }

    @Test func aServerThatIsNotThereFailsTheConnectionCheck() throws {
        let port = Daemon.freePort()
        let (status, checks) = try doctor(environment("postgresql://gatehouse@127.0.0.1:\(port)/x?sslmode=disable"))
        #expect(status == 1)
        #expect(checks["database_connection"]?.message.contains("listening") == true, "\(checks["database_connection"]?.message ?? "")")
    }

    @Test func anEmptyDatabaseWarnsAndANewerSchemaFails() throws {
        let name = try cluster.makeDatabase()
        let (_, empty) = try doctor(environment(cluster.url(database: name)))
        #expect(empty["migrations"]?.verdict == "warn")
        #expect(empty["signing_keys"] == nil)
        let store = try PostgresStore(try cluster.configuration(database: name))
        try store.database.write { connection in
            try connection.run("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (999, 'future', 'x', 'now')")
        }
        store.close()
        let (status, newer) = try doctor(environment(cluster.url(database: name)))
        #expect(status == 1)
        #expect(newer["migrations"]?.verdict == "fail")
        #expect(newer["migrations"]?.message.contains("newer than this binary") == true, "\(newer["migrations"]?.message ?? "")")
    }
}
