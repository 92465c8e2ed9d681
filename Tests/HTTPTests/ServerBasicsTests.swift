#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTP
import Synchronization
import Testing

/// Integration tests over real sockets: the HTTP/1.1 behaviours a client relies on.
@Suite struct ServerBasicsTests {
    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try server.connect()
        for _ in 0..<3 {
            try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.status == 200)
            #expect(response.text == "hello /hello")
            #expect(response.header("Date") != nil)
            #expect(response.header("Content-Length") == "12")
            #expect(response.header("X-Request-Id")?.count == 32)
            #expect(response.header("Connection") == nil)
        }
    }

    /// I12: pipelined requests are answered strictly in order, mixing inline and worker routes.
    @Test(arguments: [2, 10])
    func pipelinedRequestsAnsweredInOrder(count: Int) throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try server.connect()
        let batch = (0..<count).map { "GET /\($0 % 2 == 0 ? "seq" : "seq-inline")?\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined()
        try client.send(batch)
        for index in 0..<count {
            let response = try #require(client.readResponse())
            #expect(response.text == "\(index)")
        }
    }

    @Test func chunkedRequestBodyIsDecoded() throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try #require(try server.roundTrip(
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-T: 1\r\n\r\n"))
        #expect(response.status == 200)
        #expect(response.text == "hello world")
    }

    /// I18: HEAD has GET's headers and no body; the next response on the connection proves nothing extra was sent.
    @Test func headHasNoBody() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try server.connect()
        try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        let get = try #require(client.readResponse())
        try client.send("HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try #require(client.readResponse(head: true))
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.header("Content-Length") == get.header("Content-Length"))
        #expect(head.header("Content-Type") == get.header("Content-Type"))
        let next = try #require(client.readResponse())
        #expect(next.text == "ok")
    }

    /// I17: `Expect: 100-continue` gets 100 then the final answer; an unknown path gets its final status at once.
    @Test func expectContinue() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try server.connect()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        let interim = try #require(client.readResponse())
        #expect(interim.status == 100)
        try client.send("ping")
        let final = try #require(client.readResponse())
        #expect(final.status == 200)
        #expect(final.text == "ping")

        let refused = try server.connect()
        try refused.send("POST /nowhere HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        let direct = try #require(refused.readResponse())
        #expect(direct.status == 404)
        #expect(direct.header("Connection") == "close")
        #expect(refused.closedByServer())
    }

    @Test func unknownPathIs404AndWrongMethodIs405WithAllow() throws {
        let server = try TestServer()
        defer { server.stop() }
        let missing = try #require(try server.roundTrip("GET /missing HTTP/1.1\r\nHost: t\r\n\r\n"))
        #expect(missing.status == 404)
        #expect(missing.header("Content-Type") == "application/json")
        let wrong = try #require(try server.roundTrip("DELETE /hello HTTP/1.1\r\nHost: t\r\n\r\n"))
        #expect(wrong.status == 405)
        #expect(wrong.header("Allow") == "GET, HEAD, OPTIONS")
    }

    /// I18: TRACE and CONNECT get the router's 405, unknown methods 501, OPTIONS reaches its handler.
    @Test func unsupportedMethods() throws {
        let server = try TestServer()
        defer { server.stop() }
        #expect(try server.roundTrip("TRACE /hello HTTP/1.1\r\nHost: t\r\n\r\n")?.status == 405)
        #expect(try server.roundTrip("CONNECT /hello HTTP/1.1\r\nHost: t\r\n\r\n")?.status == 405)
        #expect(try server.roundTrip("BREW /hello HTTP/1.1\r\nHost: t\r\n\r\n")?.status == 501)
        #expect(try server.roundTrip("OPTIONS /hello HTTP/1.1\r\nHost: t\r\n\r\n")?.status == 204)
        let connect = try server.connect()
        try connect.send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n")
        #expect(connect.readResponse()?.status == 501)
        #expect(connect.closedByServer())
    }

    /// I18: versions, preface and HTTP/1.0.
    @Test func protocolVersions() throws {
        let server = try TestServer()
        defer { server.stop() }
        for (raw, status) in [("GET /hello HTTP/1.2\r\nHost: t\r\n\r\n", 505), ("GET /hello HTTP/2.0\r\nHost: t\r\n\r\n", 505),
                              ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505)] {
            let client = try server.connect()
            try client.send(raw)
            #expect(client.readResponse()?.status == status)
            #expect(client.closedByServer())
        }
        let old = try server.connect()
        try old.send("GET /hello HTTP/1.0\r\n\r\n")
        let response = try #require(old.readResponse())
        #expect(response.status == 200)
        #expect(response.header("Connection") == "close")
        #expect(old.closedByServer())

        let kept = try server.connect()
        try kept.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(kept.readResponse()?.header("Connection") == "keep-alive")
        try kept.send("GET /hello HTTP/1.0\r\n\r\n")
        #expect(kept.readResponse()?.status == 200)
    }

    /// I19: decoding happens once; `%252F` reaches the handler as `%2F`.
    @Test func pathDecodedOnce() throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try #require(try server.roundTrip("GET /a/%252F HTTP/1.1\r\nHost: t\r\n\r\n"))
        #expect(response.status == 200)
        #expect(response.text == "/a/%2F")
        for bad in ["/a%zz", "/a%4", "/a%", "/a%00", "/..%2fetc", "/%C3%28", "/%C0%AF", "/%ED%A0%80"] {
            let client = try server.connect()
            try client.send("GET \(bad) HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(client.readResponse()?.status == 400, "\(bad)")
            #expect(client.closedByServer())
        }
    }

    /// I21: an absolute-form target is refused, never routed by its authority.
    @Test func absoluteFormRefused() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try server.connect()
        try client.send("GET http://evil.example/hello HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(client.readResponse()?.status == 400)
        #expect(client.closedByServer())
        #expect(server.count("hello") == 0)
    }

    @Test func gzipWhenAllowed() throws {
        let server = try TestServer()
        defer { server.stop() }
        let plain = try #require(try server.roundTrip("GET /big HTTP/1.1\r\nHost: t\r\n\r\n"))
        #expect(plain.header("Content-Encoding") == nil)
        #expect(plain.body.count == 4000)

        let zipped = try #require(try server.roundTrip("GET /big HTTP/1.1\r\nHost: t\r\nAccept-Encoding: br, gzip\r\n\r\n"))
        #expect(zipped.header("Content-Encoding") == "gzip")
        #expect(zipped.header("Vary") == "Accept-Encoding")
        #expect(zipped.body.count < 4000)
        #expect(Array(zipped.body.prefix(2)) == [0x1F, 0x8B])

        let refused = try #require(try server.roundTrip("GET /big HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip;q=0, *\r\n\r\n"))
        #expect(refused.header("Content-Encoding") == nil)
        let small = try #require(try server.roundTrip("GET /healthz HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n"))
        #expect(small.header("Content-Encoding") == nil)
        let preset = try #require(try server.roundTrip("GET /big-encoded HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n"))
        #expect(preset.header("Content-Encoding") == "identity")
        #expect(preset.body.count == 4000)
        let empty = try #require(try server.roundTrip("GET /no-content HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n"))
        #expect(empty.status == 204)
        #expect(empty.header("Content-Encoding") == nil)
    }

    /// I22: CR/LF in a handler's header value never reaches the wire; the client gets 500 and an error is logged.
    @Test func headerInjectionBecomes500() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try server.connect()
        try client.send("GET /split HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try #require(client.readResponse())
        #expect(response.status == 500)
        #expect(response.header("Set-Cookie") == nil)
        #expect(response.header("X-Evil") == nil)
        #expect(client.readResponse()?.text == "ok")
        #expect(server.sink.lines.contains { $0.contains("\"level\":\"error\"") && $0.contains("http_invalid_response") })
    }

    @Test func accessLogHasFieldsButNoQuery() throws {
        let server = try TestServer()
        let response = try #require(try server.roundTrip(
            "GET /hello?code=SECRET123&state=x HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer TOKEN456\r\nCookie: sid=COOKIE789\r\n\r\n"))
        server.stop()
        let id = try #require(response.header("X-Request-Id"))
        let line = try #require(server.sink.lines.first { $0.contains("\"event\":\"access\"") && $0.contains(id) })
        for field in ["\"method\":\"GET\"", "\"path\":\"/hello\"", "\"status\":200", "\"bytes\":12", "\"peer\":\"127.0.0.1\"", "\"duration_ms\":",
                      "\"request_id\":\"\(id)\""] {
            #expect(line.contains(field), "\(field)")
        }
        for secret in ["SECRET123", "TOKEN456", "COOKIE789", "code=", "?"] {
            #expect(!server.sink.lines.joined().contains(secret), "\(secret)")
        }
    }

    @Test func rejectionsAreLogged() throws {
        let server = try TestServer()
        let client = try server.connect()
        try client.send("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")
        #expect(client.readResponse()?.status == 400)
        server.stop()
        #expect(server.sink.lines.contains { $0.contains("http_request_rejected") && $0.contains("duplicate Host") && $0.contains("\"status\":400") })
    }

    @Test func unixSocketListener() throws {
        let path = temporarySocketPath()
        // A stale socket file from a previous run is replaced.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        close(stale)

        let server = try TestServer(listen: [.unix(path: path), .tcp(host: "127.0.0.1", port: 0)])
        #expect(server.addresses[0] == .unix(path: path))
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        let client = try server.connect(0)
        try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(client.readResponse()?.text == "hello /hello")
        server.stop()
        #expect(server.sink.lines.contains { $0.contains("\"event\":\"access\"") && $0.contains("\"peer\":\"unix\"") })
        #expect(access(path, F_OK) != 0)  // Removed at shutdown.
    }

    @Test func ipv6LoopbackListener() throws {
        let probe = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        let available = probe >= 0 && withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        } == 0
        if probe >= 0 { close(probe) }
        guard available else {
            print("skipping IPv6 test: no ::1 on this machine")
            return
        }
        let server = try TestServer(listen: [try ListenAddress(parsing: "[::1]:0")])
        defer { server.stop() }
        guard case .tcp(let host, let port) = server.address else { Issue.record("not tcp"); return }
        #expect(host == "::1")
        #expect(port > 0)
        let response = try #require(try server.roundTrip("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n"))
        #expect(response.status == 200)
        server.stop()
        #expect(server.sink.lines.contains { $0.contains("\"peer\":\"::1\"") })
    }

    @Test func thousandSequentialRequests() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try server.connect()
        for index in 0..<1000 {
            try client.send("GET /\(index % 2 == 0 ? "seq" : "seq-inline")?\(index) HTTP/1.1\r\nHost: t\r\n\r\n")
            guard let response = client.readResponse(), response.text == "\(index)" else {
                Issue.record("request \(index) lost")
                return
            }
        }
    }

    /// I16: 200 connections open at once, every one answered.
    @Test func twoHundredConcurrentConnections() throws {
        let server = try TestServer()
        defer { server.stop() }
        let clients = try (0..<200).map { _ in try server.connect() }
        for (index, client) in clients.enumerated() {
            try client.send("GET /seq?\(index) HTTP/1.1\r\nHost: t\r\n\r\n")
        }
        var answered = 0
        for (index, client) in clients.enumerated() where client.readResponse()?.text == "\(index)" {
            answered += 1
        }
        #expect(answered == 200)
    }

    /// Workers write their own answers: bytes pipelined while one runs wait in the parser, and are
    /// answered after it, in order, without a new event from the client.
    @Test func requestsPipelinedWhileAWorkerRunsAreAnsweredInOrder() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try server.connect()
        try client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        usleep(200_000)  // The worker is now sleeping in the handler.
        try client.send("GET /seq?1 HTTP/1.1\r\nHost: t\r\n\r\nGET /seq-inline?2 HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(client.readResponse()?.text == "slow done")
        #expect(client.readResponse()?.text == "1")
        #expect(client.readResponse()?.text == "2")
    }

    /// A client that half-closes while its request is with a worker still gets the answer, then the close.
    @Test func halfCloseDuringAWorkerRequestStillGetsTheAnswer() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try server.connect()
        try client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        usleep(200_000)
        client.shutdownWrite()
        #expect(client.readResponse()?.text == "slow done")
        #expect(client.closedByServer())
    }

    /// Connections answered by workers stay open across the loops' timer scans (a worker's clock
    /// reading may be later than the loop's: the idle check must not see a negative age as huge).
    @Test func workerAnsweredConnectionsSurviveTimerScans() throws {
        let server = try TestServer()
        defer { server.stop() }
        let lost = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 16) { worker in
            guard let client = try? server.connect() else { lost.add(1, ordering: .relaxed); return }
            let deadline = Date().addingTimeInterval(0.6)
            var index = 0
            while Date() < deadline {
                guard (try? client.send("GET /seq?\(worker)-\(index) HTTP/1.1\r\nHost: t\r\n\r\n")) != nil,
                      client.readResponse()?.text == "\(worker)-\(index)" else {
                    lost.add(1, ordering: .relaxed)
                    return
                }
                index += 1
            }
        }
        #expect(lost.load(ordering: .relaxed) == 0)
    }
}
