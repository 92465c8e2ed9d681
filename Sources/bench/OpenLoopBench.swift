import Foundation

/// `bench openloop --url URL --rate R --seconds S [--connections N] [--method M] [--body FILE] [--header 'K: V']
/// [--content-type T] [--chain-refresh FILE --client-id ID | --basic B64]`: a constant-arrival-rate load, as operators
/// see it. Request i is due at start + i/R on connection i mod N; its latency counts from that due
/// time, not from when it was sent, so a stall delays every request scheduled behind it and shows
/// in the percentiles (no coordinated omission). Prints one JSON line with the achieved rate,
/// p50/p90/p99/p99.9/max in milliseconds, errors and the generator's own CPU per request.
///
/// `--chain-refresh FILE` sends refresh-token grants: one token per connection from FILE, each
/// response's `refresh_token` used for that connection's next request (rotation without reuse): a
/// JSON body with `--client-id` (a public client, as Auth0.swift sends it), or with `--basic` (base64
/// of id:secret) a form body and HTTP Basic, for a peer's confidential client.
enum OpenLoopBench: BenchCommand {
    static let name = "openloop"
    static let usage = "openloop --url URL --rate R --seconds S [--connections N] [--method M] [--body FILE] [--header 'K: V'] [--chain-refresh FILE --client-id ID | --basic B64]"

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
                                                               "--content-type", "--chain-refresh", "--client-id", "--basic", "--label"])
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
            guard chains.count >= connections, (options["--client-id"] != nil) != (options["--basic"] != nil) else {
                throw BenchUsageError(description: "--chain-refresh needs one token per connection and --client-id or --basic")
            }
        }
        let fixedBody = try options["--body"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let method = options["--method"] ?? (fixedBody != nil || !chains.isEmpty ? "POST" : "GET")
        let basic = options["--basic"]
        let contentType = options["--content-type"] ?? (chains.isEmpty || basic != nil ? "application/x-www-form-urlencoded" : "application/json")

        let (tokens, extraHeaders) = (chains, headers + (basic.map { ["Authorization: Basic " + $0] } ?? []))
        let fixedBodyBytes = fixedBody.map { [UInt8]($0) } ?? []
        let total = Int(rate * seconds)
        let start = monotonic() + 0.2
        let cpuStart = cpuSeconds()
        let results = Results(count: total)
        let group = DispatchGroup()
        for connection in 0..<connections {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                var client = HTTPClient(target: target, method: method, headers: extraHeaders)
                var token = tokens.isEmpty ? nil : tokens[connection]
                var request = connection
                while request < total {
                    let due = start + Double(request) / rate
                    let wait = due - monotonic()
                    if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
                    var body = fixedBodyBytes
                    if let current = token {
                        body = basic != nil
                            ? Array("grant_type=refresh_token&refresh_token=\(current)".utf8)
                            : Array(#"{"grant_type":"refresh_token","client_id":"\#(options["--client-id"]!)","refresh_token":"\#(current)"}"#.utf8)
                    }
                    let response = client.send(contentType: body.isEmpty ? nil : contentType, body: body)
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

    /// The `refresh_token` member's value, found by its key's bytes: the successor is a base64url
    /// or dotted ASCII token, so no escape can occur in it, and a full JSON parse per response
    /// would cost the generator more than the server's JSON costs it.
    static func refreshToken(in body: [UInt8]) -> String? {
        let key = Array(#""refresh_token":""#.utf8)
        guard let start = HTTPClient.find(key, in: body[...]).map({ $0 + key.count }),
              let end = body[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: body[start..<end], as: UTF8.self)
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

    /// One keep-alive HTTP/1.1 connection over a plain socket; reconnects after a close. The request
    /// head is built once, and responses are read as bytes into one buffer: the generator's own CPU
    /// per request is what `generator_cpu_us_per_request` reports, and it shares the cores with the server.
    struct HTTPClient {
        let target: Target
        var socket: Int32 = -1
        var buffer: [UInt8] = []
        private var chunk = [UInt8](repeating: 0, count: 16_384)
        /// Request line, Host and the fixed headers, up to where Content-Type and Content-Length go.
        private let headStart: [UInt8]
        private let isPOST: Bool

        init(target: Target, method: String, headers: [String]) {
            self.target = target
            var head = "\(method) \(target.path) HTTP/1.1\r\nHost: \(target.host):\(target.port)\r\n"
            for header in headers { head += header + "\r\n" }
            headStart = Array(head.utf8)
            isPOST = method == "POST"
        }

        struct Response {
            let status: Int
            let body: [UInt8]
        }

        mutating func send(contentType: String?, body: [UInt8]) -> Response? {
            var bytes = headStart
            if let contentType { bytes += Array("Content-Type: \(contentType)\r\n".utf8) }
            if !body.isEmpty || isPOST { bytes += Array("Content-Length: \(body.count)\r\n".utf8) }
            bytes += [13, 10]
            bytes += body
            for _ in 0..<2 {
                if socket < 0 { connect() }
                guard socket >= 0 else { return nil }
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
            var status = 0
            var length = 0
            while true {
                if headerEnd == nil, let end = Self.find([13, 10, 13, 10], in: buffer[...]) {
                    headerEnd = end
                    (status, length) = Self.statusAndLength(buffer[..<end])
                }
                if let end = headerEnd, buffer.count >= end + 4 + length {
                    let body = Array(buffer[(end + 4)..<(end + 4 + length)])
                    buffer.removeFirst(end + 4 + length)
                    return Response(status: status, body: body)
                }
                let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return nil }
                buffer += chunk[..<count]
            }
        }

        /// The status code of "HTTP/1.1 NNN …" and the Content-Length header's value (0 when absent).
        static func statusAndLength(_ head: ArraySlice<UInt8>) -> (status: Int, length: Int) {
            func number(_ digits: some Sequence<UInt8>) -> Int {
                var value = 0
                for byte in digits {
                    guard (48...57).contains(byte) else { break }
                    value = value * 10 + Int(byte - 48)
                }
                return value
            }
            let status = head.count >= 12 ? number(head.dropFirst(9).prefix(3)) : 0
            let name = Array("\r\ncontent-length:".utf8)
            var index = head.startIndex
            while index + name.count <= head.endIndex {
                var matches = true
                for offset in 0..<name.count where (head[index + offset] | (offset >= 2 ? 0x20 : 0)) != name[offset] {
                    matches = false
                    break
                }
                if matches { return (status, number(head[(index + name.count)...].drop { $0 == 32 })) }
                index += 1
            }
            return (status, 0)
        }

        /// The first index of `needle` in `haystack`.
        static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
            guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
            var index = haystack.startIndex
            let last = haystack.endIndex - needle.count
            while index <= last {
                if haystack[index] == needle[0] {
                    var offset = 1
                    while offset < needle.count && haystack[index + offset] == needle[offset] { offset += 1 }
                    if offset == needle.count { return index }
                }
                index += 1
            }
            return nil
        }
    }
}
