#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import HTTP
import Synchronization
import Testing

/// Catalogue rows of the HTTP server at a larger scale than the one-connection tests.
@Suite("Negative catalogue: HTTP server")
struct NegativeCatalogueHTTPTests {
    /// I10: 200 slowloris connections (four client addresses) trickling a byte every 250 ms are all
    /// cut at the 2 s header deadline, with 408 or a close, while other clients are served meanwhile.
    @Test func aCrowdOfSlowlorisClientsIsCutAtTheHeaderDeadline() throws {
        let server = try TestServer { $0.headerTimeout = .seconds(2) }
        defer { server.stop() }
        let slow = try (0..<200).map { try RawClient.connect(server.address, receiveTimeout: 6, source: "127.0.0.\(1 + $0 % 4)") }
        for client in slow { try client.send("GET /hello HTTP/1.1\r\nHost: t\r\nX-Slow: ") }
        let started = Date()
        let stop = Atomic<Bool>(false)
        let trickler = DispatchGroup()
        DispatchQueue.global().async(group: trickler) {
            while !stop.load(ordering: .relaxed) {
                for client in slow { _ = client.sendAvailable([UInt8(ascii: "a")][...]) }
                usleep(250_000)
            }
        }
        for _ in 0..<5 {
            let asked = Date()
            #expect(try server.roundTrip("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")?.status == 200)
            #expect(Date().timeIntervalSince(asked) < 1.5)
            usleep(100_000)
        }
        var cut = 0
        for client in slow {
            if let response = client.readResponse() { cut += response.status == 408 ? 1 : 0 } else { cut += 1 }
        }
        let elapsed = Date().timeIntervalSince(started)
        stop.store(true, ordering: .relaxed)
        trickler.wait()
        #expect(cut == slow.count)
        #expect(elapsed >= 1.8 && elapsed < 6, "the crowd was cut after \(elapsed) s")
        #expect(server.count("hello") == 0)
    }

    /// I23 over sockets: spliced and bit-flipped recorded requests, each on its own half-closed
    /// connection, never crash or wedge the server; every answer is a status the parser may give or a
    /// route's, and the server is idle and serving afterwards.
    @Test func mutatedRequestsOverSocketsLeaveTheServerServing() throws {
        let server = try TestServer { $0.maxBodyBytes = 4096 }
        defer { server.stop() }
        let corpus = [
            "GET /hello?x=1 HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n",
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 11\r\n\r\ncode=abc&x=",
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3;e=1\r\nabc\r\n0\r\nT: 1\r\n\r\n",
            "GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\nHEAD /hello HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\n\r\n",
        ].map { Array($0.utf8) }
        var random = SeededGenerator(state: 0x1_23_0A_5E_ED)
        var statuses: [Int: Int] = [:]
        for _ in 0..<1500 {
            let a = corpus.randomElement(using: &random)!, b = corpus.randomElement(using: &random)!
            var input = Array(a.prefix(Int.random(in: 0...a.count, using: &random))) + b.suffix(Int.random(in: 0...b.count, using: &random))
            for _ in 0..<Int.random(in: 0...3, using: &random) where !input.isEmpty {
                input[Int.random(in: 0..<input.count, using: &random)] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
            }
            let client = try server.connect(timeout: 3)
            try? client.send(input)
            client.shutdownWrite()
            while let response = client.readResponse() { statuses[response.status, default: 0] += 1 }
        }
        #expect(Set(statuses.keys).isSubset(of: [100, 200, 400, 404, 405, 408, 413, 414, 417, 431, 501, 505]), "\(statuses)")
        #expect(statuses[200, default: 0] > 0 && statuses[400, default: 0] > 0)
        let deadline = Date().addingTimeInterval(1)
        while server.server.connectionCount > 0, Date() < deadline { usleep(20_000) }
        #expect(server.server.connectionCount == 0)
        #expect(try server.roundTrip("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")?.status == 200)
    }
}
