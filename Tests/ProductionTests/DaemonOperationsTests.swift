import Foundation
import Glibc
import Testing
import TestSupport

/// systemd notify, SIGHUP reloads, log files, the admin listener and SIGTERM draining, on the real binary.
@Suite struct DaemonOperationsTests {
    @Test func systemdNotifyReadyReloadingStopping() throws {
        let dir = try TemporaryDirectory("idp-notify")
        let notify = try NotifySocket(path: dir.file("notify.sock"))
        let daemon = try Daemon(environment: ["NOTIFY_SOCKET": notify.path], directory: dir)
        let ready = try #require(notify.receive())
        #expect(ready.split(separator: "\n").contains("READY=1"))
        #expect(ready.contains("MAINPID=\(daemon.process.processIdentifier)"))
        daemon.signal(SIGHUP)
        let reloading = try #require(notify.receive())
        #expect(reloading.split(separator: "\n").contains("RELOADING=1"))
        #expect(reloading.contains("MONOTONIC_USEC="))
        let readyAgain = try #require(notify.receive())
        #expect(readyAgain.split(separator: "\n").contains("READY=1"))
        daemon.signal(SIGTERM)
        let stopping = try #require(notify.receive())
        #expect(stopping == "STOPPING=1")
        #expect(daemon.waitForExit() == 0)
    }

    @Test func abstractNotifySocketNamesWork() throws {
        let name = "gatehouse-test-\(UUID().uuidString.prefix(8))"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = [UInt8(0)] + Array(name.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        try #require(rc == 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let daemon = try Daemon(environment: ["NOTIFY_SOCKET": "@" + name])
        defer { daemon.stop() }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        #expect(count > 0 && String(decoding: buffer[0..<count], as: UTF8.self).hasPrefix("READY=1"))
    }

    /// SIGHUP: log_level applies at once; a changed listen needs a restart; an invalid file keeps running.
    @Test func sighupReloadsLogLevelAndReportsWhatNeedsARestart() throws {
        let dir = try TemporaryDirectory("idp-reload")
        let config = dir.file("idp.conf")
        try "log_level = info\nworker_threads = 8\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try Daemon(environment: ["IDP_CONFIG": config], directory: dir)
        defer { daemon.stop() }
        #expect(try Curl.get(daemon.baseURL + "/healthz").status == 200)
        #expect(eventually { daemon.events("access").count == 1 })

        try "log_level = warning\nworker_threads = 4\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        #expect(eventually { !daemon.events("setting_needs_restart").isEmpty })
        let restart = daemon.events("setting_needs_restart")
        #expect(restart.map { $0["key"] as? String } == ["worker_threads"])
        for _ in 0..<3 { #expect(try Curl.get(daemon.baseURL + "/healthz").status == 200) }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(daemon.events("access").count == 1)

        try "log_level = loud\nbogus = 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        #expect(eventually { !daemon.events("reload_failed").isEmpty })
        let failure = try #require(daemon.events("reload_failed").first)
        #expect((failure["problems"] as? String)?.contains("log_level") == true)
        #expect((failure["problems"] as? String)?.contains("bogus") == true)
        #expect(try Curl.get(daemon.baseURL + "/healthz").status == 200)
        #expect(daemon.process.isRunning)

        try "log_level = info\nworker_threads = 4\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        #expect(eventually { daemon.events("reloaded").count >= 1 })
        #expect(try Curl.get(daemon.baseURL + "/healthz").status == 200)
        #expect(eventually { daemon.events("access").count == 2 })
    }

    /// SIGHUP also reloads trusted_proxies.
    @Test func sighupReloadsTrustedProxies() throws {
        let dir = try TemporaryDirectory("idp-reload-proxies")
        let config = dir.file("idp.conf")
        try "trusted_proxies =\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try Daemon(environment: ["IDP_CONFIG": config], directory: dir)
        defer { daemon.stop() }
        let headers = ["-H", "X-Forwarded-For: 198.51.100.7", "-H", "X-Forwarded-Proto: http"]
        _ = try Curl.get(daemon.baseURL + "/healthz", headers)
        try "trusted_proxies = 127.0.0.1\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        #expect(eventually { !daemon.events("reloaded").isEmpty })
        #expect((daemon.events("reloaded").first?["applied"] as? String) == "trusted_proxies")
        _ = try Curl.get(daemon.baseURL + "/healthz", headers)
        #expect(eventually { daemon.events("access").count == 2 })
        #expect(daemon.events("access").map { $0["peer"] as? String } == ["127.0.0.1", "198.51.100.7"])
    }

    /// log_file: lines go to the file; after logrotate moves it, SIGHUP starts a new one.
    @Test func logFileIsReopenedOnSighup() throws {
        let dir = try TemporaryDirectory("idp-logfile")
        let log = dir.file("idp.log")
        let daemon = try Daemon(environment: ["IDP_LOG_FILE": log], directory: dir)
        defer { daemon.stop() }
        _ = try Curl.get(daemon.baseURL + "/healthz")
        #expect(eventually { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("\"access\"") })
        #expect(!daemon.standardError.contains("\"access\""))
        let attributes = try FileManager.default.attributesOfItem(atPath: log)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        try FileManager.default.moveItem(atPath: log, toPath: log + ".1")
        daemon.signal(SIGHUP)
        #expect(eventually { FileManager.default.fileExists(atPath: log) })
        _ = try Curl.get(daemon.baseURL + "/readyz")
        #expect(eventually { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("/readyz") })
        #expect(!((try? String(contentsOfFile: log + ".1", encoding: .utf8)) ?? "").contains("/readyz"))
    }

    /// Metrics live on the admin listener only; counters move with traffic; Python's Prometheus parser accepts them.
    @Test func metricsOnTheAdminListener() throws {
        let daemon = try Daemon(environment: ["IDP_ADMIN_LISTEN": "127.0.0.1:0"])
        defer { daemon.stop() }
        let admin = "http://" + (try daemon.adminAddress())
        #expect(try Curl.get(daemon.baseURL + "/metrics").status == 404)
        #expect(try Curl.get(admin + "/healthz").status == 200)
        #expect(try Curl.get(admin + "/readyz").status == 200)
        #expect(try Curl.get(admin + "/.well-known/openid-configuration").status == 404)

        func healthzCount() throws -> Double {
            let text = try Curl.get(admin + "/metrics").text
            let prefix = #"gatehouse_http_requests_total{route="/healthz",method="GET",status="200"} "#
            return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) } ?? 0
        }
        let before = try healthzCount()
        for _ in 0..<5 { _ = try Curl.get(daemon.baseURL + "/healthz") }
        #expect(try healthzCount() == before + 5)

        let metrics = try Curl.get(admin + "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = metrics.text
        for name in ["gatehouse_http_requests_total", "gatehouse_http_request_duration_seconds", "gatehouse_logins_total",
                     "gatehouse_tokens_issued_total", "gatehouse_refresh_token_reuse_detected_total", "gatehouse_active_sessions",
                     "gatehouse_database_query_duration_seconds", "gatehouse_build_info", "gatehouse_process_start_time_seconds"] {
            #expect(text.contains("# TYPE \(name) "), "\(name)")
        }
        #expect(text.contains("gatehouse_database_query_duration_seconds_count 1\n"))  // The /readyz ping above.
        #expect(text.contains(#"gatehouse_build_info{version="0.1.0"} 1"#))

        let script = """
            import sys, json
            from prometheus_client.parser import text_string_to_metric_families
            out = {}
            for family in text_string_to_metric_families(sys.stdin.read()):
                out[family.name] = {"type": family.type, "samples": len(family.samples)}
            print(json.dumps(out))
            """
        let parsed = try run("/usr/bin/env", ["python3", "-c", script], input: text)
        #expect(parsed.status == 0, "\(parsed.output)")
        let families = try #require(try JSONSerialization.jsonObject(with: Data(parsed.output.utf8)) as? [String: [String: Any]])
        #expect(families["gatehouse_http_requests"]?["type"] as? String == "counter")
        #expect(families["gatehouse_http_request_duration_seconds"]?["type"] as? String == "histogram")
        #expect(families["gatehouse_active_sessions"]?["type"] as? String == "gauge")
        #expect(families["gatehouse_build_info"]?["samples"] as? Int == 1)
        #expect(families["gatehouse_password_hashing_cpu_seconds"]?["type"] as? String == "counter")
    }

    /// I24 at daemon level: SIGTERM with requests in flight; every one gets a complete answer; exit 0.
    @Test func sigtermDrainsRequestsInFlight() throws {
        let daemon = try Daemon()
        // Half-sent requests: in progress when SIGTERM arrives, completed afterwards.
        let sockets = try (0..<3).map { _ in try RawSocket(tcpPort: daemon.port) }
        for socket in sockets { socket.send("GET /healthz HTTP/1.1\r\nHost: x\r\n") }
        // And a few curl clients hammering at the same time.
        let group = DispatchGroup()
        let failures = Locked(0)
        for _ in 0..<3 {
            DispatchQueue.global().async(group: group) {
                for _ in 0..<5 {
                    if let response = try? Curl.get(daemon.baseURL + "/readyz"), response.status != 200 { failures.mutate { $0 += 1 } }
                }
            }
        }
        Thread.sleep(forTimeInterval: 0.3)
        daemon.signal(SIGTERM)
        Thread.sleep(forTimeInterval: 0.3)
        for socket in sockets { socket.send("Accept: */*\r\n\r\n") }
        for socket in sockets {
            let answer = socket.readToEnd()
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer)")
            #expect(answer.lowercased().contains("connection: close"))
            #expect(answer.hasSuffix(#"{"status":"ok"}"#))
        }
        group.wait()
        #expect(failures.value == 0)  // Refused connections after the listener closed throw and are not counted.
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.events("stopped").count == 1)
    }
}

/// A tiny lock-protected value for test threads.
final class Locked<Value>: @unchecked Sendable {
    private var stored: Value
    private let lock = NSLock()
    init(_ value: Value) { stored = value }
    var value: Value { lock.lock(); defer { lock.unlock() }; return stored }
    func mutate(_ body: (inout Value) -> Void) { lock.lock(); body(&stored); lock.unlock() }
}
