import Foundation
import PostgreSQL
import CLinux

/// A throwaway PostgreSQL cluster for the tests: `initdb` as the current (unprivileged) user into a
/// temporary directory, a server on a random loopback port with its unix socket under /tmp, and a
/// fresh database per test (`makeDatabase`). Started once per test process, stopped when it exits.
///
/// Set `IDP_TEST_SKIP_POSTGRES=1` where PostgreSQL cannot be installed: the PostgreSQL tests are
/// then skipped (README "Tests"). Otherwise a missing or broken PostgreSQL fails them.
public final class PostgresCluster: @unchecked Sendable {
    /// Whether `IDP_TEST_SKIP_POSTGRES=1` asks to leave PostgreSQL out.
    public static let isSkipped = ProcessInfo.processInfo.environment["IDP_TEST_SKIP_POSTGRES"] == "1"

    public let directory: String
    public let port: Int
    public let socketDirectory: String
    public let user = "gatehouse"
    /// The superuser's password (scram-sha-256 is required even on loopback, so the password path is exercised).
    public let password: String
    let binaries: String
    private let lock = NSLock()
    private var databases = 0

    private static let lock = NSLock()
    nonisolated(unsafe) private static var started: Result<PostgresCluster, any Error>?

    /// The process-wide cluster, started on first use.
    public static func shared() throws -> PostgresCluster {
        lock.lock()
        defer { lock.unlock() }
        if let started { return try started.get() }
        let result = Result { try PostgresCluster() }
        started = result
        if case .success = result { atexit { PostgresCluster.stopShared() } }
        return try result.get()
    }

    /// A cluster of the caller's own (tests that stop and start the server); call `stop()` when done.
    public static func dedicated() throws -> PostgresCluster { try PostgresCluster() }

    private static func stopShared() {
        if case .success(let cluster) = started { cluster.stop() }
    }

    private init() throws {
        binaries = try Self.findBinaries()
        let id = UUID().uuidString.prefix(8).lowercased()
        directory = "/tmp/gh-pg-\(id)"
        socketDirectory = directory + "/sock"
        password = UUID().uuidString
        try FileManager.default.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true)
        let passwordFile = directory + "/pwfile"
        try Data(password.utf8).write(to: URL(fileURLWithPath: passwordFile))
        try Self.handToServerUser(directory)
        try Self.run(binaries + "/initdb", ["-D", directory + "/data", "-U", user, "--pwfile=" + passwordFile,
                                              "--auth=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"])
        var lastError: (any Error)?
        for _ in 0..<5 {
            let candidate = Int.random(in: 20_000...60_000)
            do {
                try Self.run(binaries + "/pg_ctl", ["-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "30",
                                                     "-o", Self.serverOptions(port: candidate, socket: socketDirectory), "start"])
                port = candidate
                return
            } catch {
                lastError = error
            }
        }
        let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
        throw ClusterError("PostgreSQL did not start: \(lastError.map { "\($0)" } ?? "")\n\(log.suffix(2000))")
    }

    private static func serverOptions(port: Int, socket: String) -> String {
        // fsync off: a throwaway cluster needs no durability, and tests run faster.
        "-p \(port) -k \(socket) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
    }

    /// The newest /usr/lib/postgresql/*/bin holding initdb and pg_ctl (Debian's layout).
    static func findBinaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap { Int($0) }.sorted(by: >)
        for version in versions {
            let bin = "\(root)/\(version)/bin"
            if FileManager.default.isExecutableFile(atPath: bin + "/initdb") && FileManager.default.isExecutableFile(atPath: bin + "/pg_ctl") {
                return bin
            }
        }
        throw ClusterError("no PostgreSQL server under \(root)/*/bin: install Debian's postgresql (scripts/install-deps --test), or set IDP_TEST_SKIP_POSTGRES=1 to skip these tests")
    }

    /// `postgresql://gatehouse@127.0.0.1:PORT/NAME` (no password: it travels separately).
    public func url(database: String) -> String {
        "postgresql://\(user)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    public func configuration(database: String, maxConnections: Int = 10,
                              statementTimeout: Duration = .seconds(5)) throws -> PostgresConfiguration {
        try PostgresConfiguration(url: url(database: database), password: password, statementTimeout: statementTimeout,
                                  maxConnections: maxConnections)
    }

    /// A new, empty database; its name.
    public func makeDatabase() throws -> String {
        let name = lock.withLock { () -> String in
            databases += 1
            return "test_\(ProcessInfo.processInfo.processIdentifier)_\(databases)"
        }
        let admin = try PostgresConnection(try configuration(database: "postgres"))
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(name)")
        return name
    }

    /// Stops the server (fast shutdown: open sessions are cut, as in a real restart).
    public func stopServer() throws {
        try Self.run(binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "stop"])
    }

    /// Starts it again on the same port.
    public func startServer() throws {
        try Self.run(binaries + "/pg_ctl", ["-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "30",
                                             "-o", Self.serverOptions(port: port, socket: socketDirectory), "start"])
    }

    /// Stops the server and deletes the cluster.
    public func stop() {
        try? Self.run(binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// PostgreSQL refuses to run as root (CI containers often are): then the cluster belongs to
    /// Debian's `postgres` user (or `nobody`), and the server tools run as that user through runuser.
    static let serverUser: String? = {
        guard getuid() == 0 else { return nil }
        return getpwnam("postgres") != nil ? "postgres" : "nobody"
    }()

    private static func handToServerUser(_ directory: String) throws {
        guard let serverUser, let account = getpwnam(serverUser) else { return }
        let (uid, gid) = (account.pointee.pw_uid, account.pointee.pw_gid)
        for path in [directory, directory + "/sock", directory + "/pwfile"] {
            guard chown(path, uid, gid) == 0 else { throw ClusterError("cannot hand \(path) to \(serverUser): errno \(errno)") }
        }
    }

    /// Runs a server tool to completion. posix_spawn rather than Foundation's Process: the server
    /// pg_ctl starts would inherit the descriptors Process watches for the child's exit, and
    /// waitUntilExit would then wait for the server. Here the child keeps only 0–2.
    private static func run(_ executable: String, _ arguments: [String]) throws {
        let argv = serverUser.map { ["/usr/sbin/runuser", "-u", $0, "--", executable] + arguments } ?? [executable] + arguments
        let outputPath = NSTemporaryDirectory() + "gh-pg-tool-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Every other descriptor closes in the child, including one another test's thread opens
        // while this spawns: a pipe that leaked into the long-lived server would keep that test's
        // reader waiting for an end of file until the server stops, at the end of the whole run.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw ClusterError("cannot run \(argv[0]): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exitCode == 0 else {
            let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw ClusterError("\((executable as NSString).lastPathComponent) exited \(exitCode): \(output.suffix(1500))")
        }
    }
}

public struct ClusterError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
