import Foundation

/// A real nginx (Debian's) on a loopback port, round-robin over TCP upstreams, configured as
/// `Config/nginx-cluster.conf` recommends: a dead node is skipped after one failure for 2 s
/// (`max_fails`/`fail_timeout`), and a request that could not be sent, or got 502/504, is tried
/// on the next node (`proxy_next_upstream`; nginx never resends a POST already sent). A 503 is
/// passed through: during a database outage every node answers it, with `Retry-After`.
/// Every response names the node that answered in `X-Upstream`, so tests see the spread.
public final class NginxFrontend: @unchecked Sendable {
    public let port: Int
    public let directory: TemporaryDirectory
    private let process: Process

    public var baseURL: String { "http://127.0.0.1:\(port)/" }

    public init(upstreams: [Int]) throws {
        directory = try TemporaryDirectory("nginx")
        try FileManager.default.createDirectory(atPath: directory.file("tmp"), withIntermediateDirectories: true)
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = Daemon.freePort()
            let config = directory.file("nginx.conf")
            try Self.config(port: port, upstreams: upstreams, directory: directory.path).write(toFile: config, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = ["-p", directory.path, "-c", config, "-e", directory.file("stderr.log")]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if Self.waitForListener(port: port, process: process) {
                self.port = port
                self.process = process
                return
            }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            lastError = NginxError(description: "nginx did not listen on \(port): \(Self.errorLog(directory))")
        }
        throw lastError ?? NginxError(description: "nginx did not start")
    }

    deinit { stop() }

    /// What nginx logged (for failure messages).
    public var errorLog: String { Self.errorLog(directory) }

    public func stop() {
        process.stop(within: 10)  // nginx's fast shutdown takes milliseconds
    }

    static func config(port: Int, upstreams: [Int], directory: String) -> String {
        // As root, nginx's workers would run as nobody; the temp paths are ours.
        let user = getuid() == 0 ? "user root;" : ""
        let servers = upstreams.map { "        server 127.0.0.1:\($0) max_fails=1 fail_timeout=2s;" }.joined(separator: "\n")
        return """
            \(user)
            daemon off;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log info;
            events { worker_connections 1024; }
            http {
                access_log \(directory)/access.log;
                client_body_temp_path \(directory)/tmp/body;
                proxy_temp_path \(directory)/tmp/proxy;
                fastcgi_temp_path \(directory)/tmp/fastcgi;
                uwsgi_temp_path \(directory)/tmp/uwsgi;
                scgi_temp_path \(directory)/tmp/scgi;
                upstream gatehouse {
            \(servers)
                    keepalive 32;
                }
                server {
                    listen 127.0.0.1:\(port);
                    # Answered by nginx itself: probing through the upstreams before they listen would mark them failed.
                    location = /nginx-probe { return 204; }
                    location / {
                        proxy_pass http://gatehouse;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $http_host;
                        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                        proxy_set_header X-Forwarded-Proto $scheme;
                        proxy_redirect off;
                        proxy_connect_timeout 1s;
                        proxy_next_upstream error timeout http_502 http_504;
                        proxy_next_upstream_tries 3;
                        add_header X-Upstream $upstream_addr always;
                    }
                }
            }
            """
    }

    private static func waitForListener(port: Int, process: Process) -> Bool {
        for _ in 0..<100 {
            if !process.isRunning { return false }
            if let response = try? Curl.get("http://127.0.0.1:\(port)/nginx-probe", ["--max-time", "1"]), response.status == 204 { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    private static func errorLog(_ directory: TemporaryDirectory) -> String {
        ["stderr.log", "error.log"].compactMap { try? String(contentsOfFile: directory.file($0), encoding: .utf8) }
            .joined(separator: "\n").suffix(3000).description
    }
}

public struct NginxError: Error, CustomStringConvertible {
    public let description: String
}
