import Foundation
import KeyManagement
import Model
import Settings
import SQLite
import Storage

/// `idp-admin doctor`: checks a deployment and says, per check, ok / warn / fail with what to do.
enum DoctorCommand {
    struct Check {
        enum Verdict: String { case ok, warn, fail }
        let name: String
        let verdict: Verdict
        let message: String
    }

    static let doctor = Command(
        ["doctor"],
        summary: "Check configuration, database, signing keys, file permissions, clock, issuer and proxy settings.",
        usage: "doctor [--config PATH] [--url URL [--cacert FILE] [--resolve HOST:IP]] [--json]",
        details: """
            Every check prints ok, warn or fail with a message; the exit status is 1 when any check fails.
            --url URL fetches URL/.well-known/openid-configuration (e.g. through nginx) and compares its issuer
            with the configured one; a failure names its cause (DNS, TCP connect, TLS verification, timeout, HTTP
            status). --cacert FILE trusts that CA (a private or not yet public certificate); --resolve HOST:IP
            sends HOST's requests to IP (before DNS points at the server).
            For a unix-socket listener the socket is checked (exists, owner, group, mode) and connected to, and
            doctor says which user must be in which group for nginx to reach it. When admin_listen is a TCP address, what the running daemon saw from its
            proxy (/proxyz) is reported too. Read-only: nothing is created or migrated.
            """,
        valueFlags: ["--url", "--cacert", "--resolve"],
        run: { invocation in
            let checks = runChecks(invocation)
            let rows = checks.map { [$0.name, $0.verdict.rawValue, $0.message] }
            var output = Output.table(["CHECK", "VERDICT", "MESSAGE"], rows,
                                      json: checks.map { ["check": $0.name, "verdict": $0.verdict.rawValue, "message": $0.message] })
            if checks.contains(where: { $0.verdict == .fail }) { output.status = 1 }
            return output
        })

    static func runChecks(_ invocation: Invocation) -> [Check] {
        var checks: [Check] = []
        func add(_ name: String, _ verdict: Check.Verdict, _ message: String) { checks.append(Check(name: name, verdict: verdict, message: message)) }

        let loaded: SettingsLoader.Loaded
        do {
            loaded = try invocation.loaded()
            add("config", loaded.warnings.isEmpty ? .ok : .warn,
                loaded.warnings.isEmpty ? "configuration loads" : loaded.warnings.joined(separator: "; "))
        } catch {
            add("config", .fail, String(describing: error).replacingOccurrences(of: "\n", with: " "))
            return checks
        }
        let settings = loaded.settings

        // Clock: tokens and TLS both depend on it.
        let year2024 = Date(timeIntervalSince1970: 1_704_067_200)
        if Date() < year2024 {
            add("clock", .fail, "system time \(Date()) is before 2024: fix NTP (timedatectl) before issuing tokens")
        } else {
            add("clock", .ok, "system time \(ISO8601DateFormatter().string(from: Date()))")
        }

        // Issuer: https unless loopback.
        let (host, _) = splitHost(settings.issuer.authority)
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(host.lowercased()) || host.hasPrefix("127.")
        if settings.issuer.isHTTPS {
            add("issuer", .ok, "\(settings.issuer.url)")
        } else if loopback {
            add("issuer", .warn, "\(settings.issuer.url) is http: fine for local development only")
        } else {
            add("issuer", .fail, "\(settings.issuer.url) is http on a non-loopback host: set issuer to the public https URL (TLS at nginx)")
        }

        // Listener and proxy trust (J01, J02).
        if settings.issuer.isHTTPS, settings.trustedProxies.isEmpty {
            add("tls_proxy", .warn, "issuer \(settings.issuer.url) is https but trusted_proxies is empty: behind TLS termination idp sees plain http from nginx and every client address is the proxy's; set trusted_proxies (unix, or nginx's address)")
        }
        switch settings.listen {
        case .unix(let path):
            checks.append(UnixSocketCheck.check(path))
            if !settings.trustedProxies.unixSockets {
                add("trusted_proxies", .warn, "listening on unix:\(path) but trusted_proxies lacks `unix`: client IPs in logs and throttling will all be \"unix\"; set trusted_proxies = unix")
            } else {
                add("trusted_proxies", .ok, "unix-socket peers (nginx) are trusted: \(settings.trustedProxies)")
            }
        case .tcp(let listenHost, let port):
            if ["0.0.0.0", "::", ""].contains(listenHost) {
                add("listen", .warn, "listening on all interfaces (\(settings.listen)): behind nginx bind 127.0.0.1:\(port) or a unix socket so the app port is not reachable from outside (J01)")
            } else {
                add("listen", .ok, settings.listen.description)
            }
            add("trusted_proxies", .ok, settings.trustedProxies.isEmpty ? "nothing trusted: client IP is the TCP peer" : settings.trustedProxies.description)
        }

        checks += emailChecks(settings)
        checks += LibraryDoctorChecks.run(settings)

        if settings.isPostgreSQL {
            let (postgres, schemaCurrent) = PostgresDoctorChecks.run(settings)
            checks += postgres
            if schemaCurrent {
                do {
                    let store = try StorageBackend.open(settings: settings, readers: 1, startupWait: .zero)
                    defer { store.close() }
                    checks += keyChecks(settings, store: store)
                } catch {
                    add("signing_keys", .fail, "\(error)")
                }
            }
            return checks + remoteChecks(invocation, settings)
        }

        // Database: exists, permissions, integrity, migrations.
        let databasePath = settings.database
        guard FileManager.default.fileExists(atPath: databasePath) else {
            add("database", .fail, "\(databasePath) does not exist: start idp once (it creates and migrates it) or fix `database`")
            return checks + remoteChecks(invocation, settings)
        }
        checks.append(permissions("database_permissions", databasePath, strict: false))
        do {
            let database = try Database(path: databasePath, readers: 1)
            defer { database.close() }
            let integrity = try database.integrityCheck()
            add("database_integrity", integrity == ["ok"] ? .ok : .fail,
                integrity == ["ok"] ? "integrity_check ok" : "integrity_check: " + integrity.prefix(5).joined(separator: "; ") + " — restore from backup")
            let status = try Migrator(EmbeddedMigrations.all, database: database).status()
            let pending = status.filter { !$0.applied }
            if pending.isEmpty {
                add("migrations", .ok, "\(status.count) applied, matching this binary")
            } else {
                add("migrations", .warn, "\(pending.count) pending (\(pending.map { String($0.migration.version) }.joined(separator: ","))): idp applies them at its next start")
                return checks + remoteChecks(invocation, settings)
            }
        } catch {
            add("database_integrity", .fail, "cannot read \(databasePath): \(error)")
            return checks + remoteChecks(invocation, settings)
        }

        do {
            let store = try Store(path: databasePath, readers: 1)
            defer { store.close() }
            checks += keyChecks(settings, store: store)
        } catch {
            add("signing_keys", .fail, "\(error)")
        }
        if settings.emailDelivery != nil, let store = try? Store(path: databasePath, readers: 1) {
            defer { store.close() }
            let entries: [OutboxEntry]
            do {
                entries = try SQLiteMailOutbox.list(in: store, limit: 1000, statuses: [.failed, .pending, .sending])
            } catch {
                add("email_queue", .fail, "cannot read the mail queue: \(error)")
                return checks + remoteChecks(invocation, settings)
            }
            let failed = entries.filter { $0.status == .failed }
            let late = entries.filter { $0.status != .failed && $0.attempts > 0 }
            if let latest = failed.first {
                add("email_queue", .warn, "\(failed.count) message(s) failed in the last 7 days, the latest: \(latest.lastError ?? "?") (see `idp-admin email queue`)")
            } else if let stuck = late.first {
                add("email_queue", .warn, "\(late.count) message(s) waiting for a retry: \(stuck.lastError ?? "?") (try `idp-admin email test ADDRESS`)")
            } else {
                add("email_queue", .ok, "\(entries.count) message(s) queued, none failing")
            }
        }
        return checks + remoteChecks(invocation, settings)
    }

    /// Signing keys: the KEK file, decryption, an active key per algorithm (either backend).
    static func keyChecks(_ settings: Settings, store: some SQLStorage) -> [Check] {
        var checks: [Check] = []
        func add(_ name: String, _ verdict: Check.Verdict, _ message: String) { checks.append(Check(name: name, verdict: verdict, message: message)) }
        if settings.keyEncryptionKey == nil {
            let kekPath = settings.effectiveKeyEncryptionKeyFile
            if FileManager.default.fileExists(atPath: kekPath) {
                checks.append(permissions("kek_permissions", kekPath, strict: true))
            } else {
                add("kek_permissions", .fail, "\(kekPath) does not exist and key_encryption_key is unset: the stored keys cannot be decrypted")
            }
        } else {
            add("kek_permissions", .ok, "key-encryption key set inline (environment or config)")
        }
        do {
            let records = try SigningKeyStore(store: store).all()
            let active = Set(records.filter { $0.status == .active }.map(\.algorithm))
            let missing = ["RS256", "ES256"].filter { !active.contains($0) }
            if !missing.isEmpty {
                add("signing_keys", .fail, "no active \(missing.joined(separator: " and ")) key: run `idp-admin keys rotate --alg \(missing[0])` (or start idp once)")
            } else {
                let manager = try KeyManager.open(store: store, settings: settings)
                let keys = try manager.keySet()
                add("signing_keys", .ok, "\(keys.records.count) keys decrypt; active RS256 and ES256 present")
            }
        } catch {
            add("signing_keys", .fail, "\(error)")
        }
        return checks
    }

    /// The email transport as configured (the delivery itself is `idp-admin email test`'s job).
    static func emailChecks(_ settings: Settings) -> [Check] {
        guard let delivery = settings.emailDelivery else {
            return [Check(name: "email", verdict: .ok, message: "not configured: no mail is sent, and no flow offers a password reset")]
        }
        switch delivery.transport {
        case .smtp(let url, _, let passwordFile, _, _):
            var checks = [Check(name: "email", verdict: .ok, message: url.implicitTLS ? "\(url) (implicit TLS)"
                                : url.isLoopback ? "\(url) (loopback: STARTTLS when offered)" : "\(url) (STARTTLS required)")]
            if let passwordFile { checks.append(permissions("smtp_password_file", passwordFile, strict: true)) }
            return checks
        case .sendmail(let command):
            let program = command[0]
            let found = program.contains("/") ? FileManager.default.isExecutableFile(atPath: program)
                : (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
                    FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
                }
            return [Check(name: "email", verdict: found ? .ok : .fail,
                          message: found ? "sendmail_command \(command.joined(separator: " "))" : "sendmail_command: \(program) is not an executable file on PATH")]
        }
    }

    /// Mode 0600 and owned by the current user. `strict`: anything looser is a failure (secrets).
    static func permissions(_ name: String, _ path: String, strict: Bool) -> Check {
        var info = stat()
        guard stat(path, &info) == 0 else { return Check(name: name, verdict: .fail, message: "cannot stat \(path)") }
        let mode = Int(info.st_mode) & 0o777
        var problems: [String] = []
        if mode & 0o077 != 0 { problems.append("mode is \(String(mode, radix: 8)), want 600 (chmod 600 \(path))") }
        if info.st_uid != geteuid() { problems.append("owned by uid \(info.st_uid), not the current user (uid \(geteuid())); run doctor as the service user") }
        if problems.isEmpty { return Check(name: name, verdict: .ok, message: "\(path) is 0600 and ours") }
        return Check(name: name, verdict: strict && mode & 0o077 != 0 ? .fail : .warn, message: problems.joined(separator: "; "))
    }

    /// `--url` discovery comparison, and the running daemon's proxy self-check from the admin listener.
    static func remoteChecks(_ invocation: Invocation, _ settings: Settings) -> [Check] {
        var checks: [Check] = []
        if let url = invocation.arguments.value("--url") {
            let base = url.hasSuffix("/") ? url : url + "/"
            let discoveryURL = base + ".well-known/openid-configuration"
            var curlOptions: [String] = []
            if let cacert = invocation.arguments.value("--cacert") { curlOptions += ["--cacert", cacert] }
            if let resolve = invocation.arguments.value("--resolve") {
                guard let option = DiscoveryFetch.resolveOption(resolve, url: discoveryURL) else {
                    return checks + [Check(name: "discovery", verdict: .fail, message: "--resolve \(resolve): expected HOST:IP, with HOST the host of --url")]
                }
                curlOptions += ["--resolve", option]
            }
            switch DiscoveryFetch.get(discoveryURL, options: curlOptions) {
            case .failed(let cause):
                checks.append(Check(name: "discovery", verdict: .fail, message: "cannot fetch \(discoveryURL): \(cause)"))
            case .answered(let status, let body):
                let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
                let issuer = object?["issuer"] as? String
                if status != 200 {
                    checks.append(Check(name: "discovery", verdict: .fail, message: "\(discoveryURL) answered HTTP \(status)\(status == 502 ? " (the proxy could not reach idp: check its upstream and the socket's group)" : "")"))
                } else if issuer == settings.issuer.url {
                    checks.append(Check(name: "discovery", verdict: .ok, message: "\(discoveryURL) reports issuer \(settings.issuer.url)"))
                } else {
                    checks.append(Check(name: "discovery", verdict: .fail,
                                        message: "\(discoveryURL) reports issuer \(issuer ?? "(none)") but this configuration says \(settings.issuer.url): the URL reaches another instance or configuration"))
                }
            }
        }
        if case .tcp(let host, let port)? = settings.adminListen, port != 0 {
            let connectHost = ["0.0.0.0", ""].contains(host) ? "127.0.0.1" : (host == "::" ? "[::1]" : (host.contains(":") ? "[\(host)]" : host))
            if let (status, body) = fetch("http://\(connectHost):\(port)/proxyz"), status == 200,
               let report = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] {
                if let mismatch = report["mismatch"] as? [String: String] {
                    checks.append(Check(name: "proxy_headers", verdict: .warn,
                                        message: "\(mismatch["problem"] ?? "mismatch"): \(mismatch["fix"] ?? "")"))
                } else if let peer = report["untrusted_peer"] as? String {
                    checks.append(Check(name: "proxy_headers", verdict: .warn,
                                        message: "forwarded headers arrived from \(peer), which is not in trusted_proxies"))
                } else if report["first_trusted"] != nil {
                    checks.append(Check(name: "proxy_headers", verdict: .ok, message: "the proxy's forwarded headers match the issuer"))
                } else {
                    checks.append(Check(name: "proxy_headers", verdict: .ok, message: "no proxied request seen yet"))
                }
            }
        }
        return checks
    }

    /// GET with the curl CLI (present wherever Gatehouse is deployed, including the container image).
    static func fetch(_ url: String) -> (Int, Data)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "--max-time", "10", "-w", "\n%{http_code}", url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let newline = data.lastIndex(of: UInt8(ascii: "\n")),
              let status = Int(String(decoding: data[data.index(after: newline)...], as: UTF8.self)) else { return nil }
        return (status, Data(data[..<newline]))
    }

    static func splitHost(_ authority: String) -> (String, String?) {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return (String(authority[authority.index(after: authority.startIndex)..<close]), nil)
        }
        if let colon = authority.lastIndex(of: ":") { return (String(authority[..<colon]), String(authority[authority.index(after: colon)...])) }
        return (authority, nil)
    }
}
