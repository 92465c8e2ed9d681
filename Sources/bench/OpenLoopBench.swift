import Foundation

/// `bench openloop --url URL --rate R --seconds S [--connections N] [--method M] [--body FILE] [--header 'K: V']
/// [--content-type T] [--chain-refresh FILE --client-id ID]`: a constant-arrival-rate load, as operators
/// see it. Request i is due at start + i/R on connection i mod N; its latency counts from that due
/// time, not from when it was sent, so a stall delays every request scheduled behind it and shows
/// in the percentiles (no coordinated omission). Prints one JSON line with the achieved rate,
/// p50/p90/p99/p99.9/max in milliseconds, errors and the generator's own CPU per request.
///
/// `--chain-refresh FILE` sends refresh-token grants: one token per connection from FILE, each
/// response's `refresh_token` used for that connection's next request (rotation without reuse).
enum OpenLoopBench: BenchCommand {
    static let name = "openloop"
    static let usage = "openloop --url URL --rate R --seconds S [--connections N] [--method M] [--body FILE] [--header 'K: V'] [--chain-refresh FILE --client-id ID]"

    struct Target {
        let host: String
        let port: UInt16
        let path: String
    }

    static func run(arguments: [String]) throws {
        var headers: [String] = []
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            if arguments[index] == "--header", index + 1 < arguments.count { headers.append(arguments[index + 1]); index += 2; continue }
            rest.append(arguments[index])
            index += 1
        }
        let options = try BenchSupport.options(rest, allowed: ["--url", "--rate", "--seconds", "--connections", "--method", "--body",
                                                               "--content-type", "--chain-refresh", "--client-id", "--label"])
        guard let url = options["--url"].flatMap(URLComponents.init(string:)), let host = url.host, url.scheme == "http" else {
            throw BenchUsageError(description: "--url http://host:port/path is required")
        }
        guard let rate = options["--rate"].flatMap(Double.init), rate > 0 else { throw BenchUsageError(description: "--rate R is required") }
        let seconds = options["--seconds"].flatMap(Double.init) ?? 10
        let connections = max(1, options["--connections"].flatMap(Int.init) ?? 16)
        let target = Target(host: host, port: UInt16(url.port ?? 80), path: url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? ""))
        var chains: [String] = []
        if let file = options["--chain-refresh"] {
            chains = try String(contentsOfFile: file, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
            guard chains.count >= connections, options["--client-id"] != nil else {
                throw BenchUsageError(description: "--chain-refresh needs one token per connection and --client-id")
            }
        }
        let fixedBody = try options["--body"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let method = options["--method"] ?? (fixedBody != nil || !chains.isEmpty ? "POST" : "GET")
        let contentType = options["--content-type"] ?? (chains.isEmpty ? "application/x-www-form-urlencoded" : "application/json")

        let (tokens, extraHeaders) = (chains, headers)
        let total = Int(rate * seconds)
        let start = monotonic() + 0.2
        let cpuStart = cpuSeconds()
        let results = Results(count: total)
        let group = DispatchGroup()
        for connection in 0..<connections {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                var client = HTTPClient(target: target)
                var token = tokens.isEmpty ? nil : tokens[connection]
                var request = connection
                while request < total {
                    let due = start + Double(request) / rate
                    let wait = due - monotonic()
                    if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
                    var body = fixedBody.map { [UInt8]($0) } ?? []
                    if let current = token {
                        body = Array(#"{"grant_type":"refresh_token","client_id":"\#(options["--client-id"]!)","refresh_token":"\#(current)"}"#.utf8)
                    }
                    let response = client.send(method: method, headers: extraHeaders, contentType: body.isEmpty ? nil : contentType, body: body)
                    let done = monotonic()
                    if let response, (200..<300).contains(response.status) {
                        results.record(request, latency: done - due)
                        if token != nil { token = Self.refreshToken(in: response.body) ?? token }
                    } else {
                        results.fail(request)
                    }
                    request += connections
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        group.wait()
        let elapsed = monotonic() - start
        let cpu = cpuSeconds() - cpuStart
        let latencies = results.latencies.sorted()
        func percentile(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            return latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] * 1000
        }
        let label = options["--label"] ?? "openloop"
        print(String(format: #"{"name":"%@","target_rate":%.1f,"achieved_rate":%.1f,"requests":%d,"errors":%d,"p50_ms":%.3f,"p90_ms":%.3f,"p99_ms":%.3f,"p999_ms":%.3f,"max_ms":%.3f,"generator_cpu_us_per_request":%.1f}"#,
                     label, rate, Double(latencies.count) / elapsed, latencies.count, results.errors, percentile(0.5), percentile(0.9),
                     percentile(0.99), percentile(0.999), (latencies.last ?? 0) * 1000, cpu / Double(max(1, total)) * 1e6))
    }

    static func refreshToken(in body: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return object["refresh_token"] as? String
    }

    static func monotonic() -> Double { BenchSupport.now(.wall) }

    static func cpuSeconds() -> Double { BenchSupport.now(.cpu) }

    /// Latencies by request, written by the connection threads (each its own slots).
    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var latencies: [Double] = []
        private(set) var errors = 0

        init(count: Int) { latencies.reserveCapacity(count) }

        func record(_ request: Int, latency: Double) {
            lock.lock(); latencies.append(latency); lock.unlock()
        }

        func fail(_ request: Int) {
            lock.lock(); errors += 1; lock.unlock()
        }
    }

    /// One keep-alive HTTP/1.1 connection over a plain socket; reconnects after a close.
    struct HTTPClient {
        let target: Target
        var socket: Int32 = -1
        var buffer: [UInt8] = []

        init(target: Target) { self.target = target }

        struct Response {
            let status: Int
            let body: [UInt8]
        }

        mutating func send(method: String, headers: [String], contentType: String?, body: [UInt8]) -> Response? {
            for _ in 0..<2 {
                if socket < 0 { connect() }
                guard socket >= 0 else { return nil }
                var head = "\(method) \(target.path) HTTP/1.1\r\nHost: \(target.host):\(target.port)\r\n"
                for header in headers { head += header + "\r\n" }
                if let contentType { head += "Content-Type: \(contentType)\r\n" }
                if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
                head += "\r\n"
                let bytes = Array(head.utf8) + body
                if writeAll(bytes), let response = readResponse() { return response }
                close(socket)
                socket = -1
                buffer = []
            }
            return nil
        }

        private mutating func connect() {
            let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { return }
            var one: Int32 = 1
            setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = target.port.bigEndian
            inet_pton(AF_INET, target.host == "localhost" ? "127.0.0.1" : target.host, &address.sin_addr)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if connected == 0 { socket = descriptor } else { close(descriptor) }
        }

        private func writeAll(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if written <= 0 { return false }
                offset += written
            }
            return true
        }

        /// Status line, headers up to the blank line, then exactly Content-Length bytes.
        private mutating func readResponse() -> Response? {
            var headerEnd: Int?
            while true {
                if headerEnd == nil, let end = find(Array("\r\n\r\n".utf8)) { headerEnd = end }
                if let end = headerEnd {
                    let head = String(decoding: buffer[..<end], as: UTF8.self).lowercased()
                    let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
                    let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                    if buffer.count >= end + 4 + length {
                        let body = Array(buffer[(end + 4)..<(end + 4 + length)])
                        buffer.removeFirst(end + 4 + length)
                        return Response(status: status, body: body)
                    }
                }
                var chunk = [UInt8](repeating: 0, count: 16_384)
                let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return nil }
                buffer += chunk[..<count]
            }
        }

        private func find(_ needle: [UInt8]) -> Int? {
            guard buffer.count >= needle.count else { return nil }
            for start in 0...(buffer.count - needle.count) where buffer[start] == needle[0] && Array(buffer[start..<start + needle.count]) == needle {
                return start
            }
            return nil
        }
    }
}
