#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTP
import Logging
import Synchronization

/// A running server with the routes integration tests need, plus counters of what handlers saw.
final class TestServer: Sendable {
    let server: HTTPServer
    let addresses: [BoundAddress]
    let sink: LogSink
    let counters: Counters
    /// What `GET /held` waits for: the test's `releaseHeld()`, so a request is in flight for exactly as long as a test needs.
    let held = DispatchSemaphore(value: 0)

    var address: BoundAddress { addresses[0] }

    init(listen: [ListenAddress] = [.tcp(host: "127.0.0.1", port: 0)],
         configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws {
        var configuration = HTTPServerConfiguration(listen: listen)
        configuration.loopThreads = 2
        configuration.workerThreads = 4
        configure(&configuration)
        sink = LogSink.memory()
        var router = Router()
        let counters = Counters()
        @Sendable func count(_ name: String) { counters.bump(name) }
        router.add("GET", "/healthz", execution: .inline) { _ in count("healthz"); return .text("ok") }
        router.add("GET", "/hello") { request in count("hello"); return .text("hello \(request.path)") }
        router.add("POST", "/echo") { request in
            count("echo")
            return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/octet-stream")]), body: request.body)
        }
        router.add("POST", "/slow-echo") { request in
            usleep(500_000)
            return HTTPResponse(status: 200, body: request.body)
        }
        router.add("POST", "/smuggled") { _ in count("smuggled"); return .text("smuggled") }
        router.add("GET", "/smuggled") { _ in count("smuggled"); return .text("smuggled") }
        router.add("GET", "/big") { _ in .text(String(repeating: "gatehouse ", count: 400)) }
        router.add("GET", "/big-encoded") { _ in
            var response = HTTPResponse.text(String(repeating: "x", count: 4000))
            response.headers.set("Content-Encoding", "identity")
            return response
        }
        router.add("GET", "/no-content") { _ in HTTPResponse(status: 204) }
        router.add("GET", "/split") { _ in
            var response = HTTPResponse.text("split")
            response.headers.add("X-Evil", "a\r\nSet-Cookie: owned=1")
            return response
        }
        router.add("GET", "/slow") { _ in count("slow"); usleep(1_000_000); return .text("slow done") }
        let held = self.held
        router.add("GET", "/held") { _ in count("held"); held.wait(); return .text("held done") }
        router.add("GET", "/huge") { _ in HTTPResponse(status: 200, body: [UInt8](repeating: 65, count: 8 << 20)) }
        router.add("GET", "/seq") { request in .text(request.query) }
        router.add("GET", "/seq-inline", execution: .inline) { request in .text(request.query) }
        router.add("GET", "/path") { request in .text(request.path) }
        router.add("GET", "/a/%2F") { request in .text(request.path) }
        router.add("GET", "/a%2Fb") { request in .text(request.path) }
        router.add("OPTIONS", "/hello") { _ in HTTPResponse(status: 204, headers: HTTPHeaders([("Allow", "GET, OPTIONS")])) }
        self.counters = counters
        server = HTTPServer(configuration: configuration, responder: router, logger: Logger(level: .debug, sink: sink))
        addresses = try server.start()
    }

    func count(_ name: String) -> Int { counters.value(name) }

    /// Lets one `GET /held` answer.
    func releaseHeld() { held.signal() }

    func connect(_ index: Int = 0, timeout: Double = 5) throws -> RawClient {
        try RawClient.connect(addresses[index], receiveTimeout: timeout)
    }

    /// Sends `request` on a fresh connection and returns the first response.
    func roundTrip(_ request: String, head: Bool = false) throws -> RawClient.Response? {
        let client = try connect()
        try client.send(request)
        return client.readResponse(head: head)
    }

    func stop() { server.shutdown() }
}

/// A unique temporary path for a unix socket (tests run in parallel).
func temporarySocketPath() -> String {
    "/tmp/gh-http-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
}

/// Thread-safe hit counters keyed by route name.
final class Counters: Sendable {
    private let hits = Mutex<[String: Int]>([:])
    func bump(_ name: String) { hits.withLock { $0[name, default: 0] += 1 } }
    func value(_ name: String) -> Int { hits.withLock { $0[name, default: 0] } }
}
