import Foundation
import HTTP
import Logging
import Testing
import TestSupport

/// The HTTP layer's two hooks, on a bare `HTTPServer`: request identity and the response observer.
@Suite struct HTTPHookTests {
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [(route: String, status: Int, method: String, client: String, id: String)] = []
        func add(_ item: (String, Int, String, String, String)) { lock.lock(); items.append(item); lock.unlock() }
        var all: [(route: String, status: Int, method: String, client: String, id: String)] { lock.lock(); defer { lock.unlock() }; return items }
    }

    @Test func identityAndObserverSeeEveryRequest() throws {
        var configuration = HTTPServerConfiguration(listen: [.tcp(host: "127.0.0.1", port: 0)])
        configuration.loopThreads = 1
        configuration.workerThreads = 1
        configuration.requestIdentity = { peer, headers in
            (clientAddress: headers["X-Test-Client"] ?? "from-\(peer)", requestID: headers["X-Test-Id"])
        }
        let seen = Seen()
        configuration.onResponse = { request, route, status, bytes, duration in
            #expect(bytes > 0 && duration >= 0)
            seen.add((route, status, request.method, request.clientAddress, request.requestID))
        }
        var router = Router(prefix: "/app/")
        router.add("GET", "echo", execution: .worker) { request in
            .text("\(request.clientAddress) \(request.routePattern ?? "-")")
        }
        let sink = LogSink.memory()
        let server = HTTPServer(configuration: configuration, responder: router, logger: Logger(sink: sink))
        let bound = try server.start()
        defer { server.shutdown() }
        guard case .tcp(_, let port) = bound[0] else { Issue.record("no port"); return }
        let base = "http://127.0.0.1:\(port)"

        let echo = try Curl.get(base + "/app/echo", ["-H", "X-Test-Client: 198.51.100.7", "-H", "X-Test-Id: abc"])
        #expect(echo.text == "198.51.100.7 /app/echo")
        #expect(echo.headers["x-request-id"] == "abc")
        #expect(try Curl.get(base + "/app/nowhere/\(UUID())").status == 404)
        #expect(try Curl.get(base + "/app/echo", ["-X", "POST"]).status == 405)
        #expect(try Curl.get(base + "/app/echo", ["-H", "Bad Header: x"]).status == 400)

        #expect(eventually { seen.all.count == 4 })
        let all = seen.all
        #expect(all.map(\.route) == ["/app/echo", "unmatched", "/app/echo", "rejected"])
        #expect(all.map(\.status) == [200, 404, 405, 400])
        #expect(all[0].client == "198.51.100.7" && all[0].id == "abc")
        #expect(all[1].client == "from-127.0.0.1")
        #expect(all[3].method == "-")
        let access = sink.lines.filter { $0.contains("\"event\":\"access\"") }
        #expect(access.first?.contains("\"peer\":\"198.51.100.7\"") == true)
        #expect(access.first?.contains("\"proxy\":\"127.0.0.1\"") == true)
        #expect(access.first?.contains("\"request_id\":\"abc\"") == true)
    }
}
