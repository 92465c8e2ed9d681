#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTP
import Testing

/// The limits that keep one abusive client from exhausting the server: connections per client address,
/// and the memory all buffered request bodies may take.
@Suite struct AbuseLimitsTests {
    /// The N+1th connection from one address is closed at accept; another address still connects, and a
    /// closed connection frees its slot.
    @Test func perClientCapRefusesTheNextConnection() throws {
        let server = try TestServer { $0.maxConnectionsPerClient = 3 }
        defer { server.stop() }
        var kept = try (0..<3).map { _ in try server.connect() }
        #expect(kept.allSatisfy { $0.answersHealthz() })
        #expect(try !server.connect().answersHealthz())
        #expect(server.sink.lines.contains { $0.contains("max_connections_per_client") && $0.contains("127.0.0.1") })
        #expect(try RawClient.connect(server.address, source: "127.0.0.2").answersHealthz())
        #expect(kept.allSatisfy { $0.answersHealthz() })

        kept.removeFirst()  // Closed by its deinit; the server counts it out once it sees the FIN.
        var admitted = false
        for _ in 0..<50 where !admitted {
            usleep(20_000)
            admitted = try server.connect(timeout: 1).answersHealthz()
        }
        #expect(admitted)
    }

    @Test func perClientCapZeroIsOff() throws {
        let server = try TestServer { $0.maxConnectionsPerClient = 0 }
        defer { server.stop() }
        let clients = try (0..<20).map { _ in try server.connect() }
        #expect(clients.allSatisfy { $0.answersHealthz() })
        #expect(!server.sink.lines.contains { $0.contains("max_connections_per_client") })
    }

    /// Bodies with workers count until answered and cannot be shed: a new body that does not fit beside them
    /// is refused with 503 and Retry-After, and fits again once they are answered.
    @Test func bodiesWithWorkersCountAgainstTheBudget() throws {
        let server = try TestServer {
            $0.loopThreads = 1
            $0.maxBodyBytes = 64 * 1024
            $0.maxBufferedBodyBytes = 192 * 1024
        }
        defer { server.stop() }
        let post = "POST /slow-echo HTTP/1.1\r\nHost: t\r\nContent-Length: 61440\r\n\r\n" + String(repeating: "b", count: 61440)
        let running = try (0..<3).map { _ in try server.connect() }
        for client in running { try client.send(post) }
        usleep(100_000)  // All three are with workers now: about 180 KiB of the 192 KiB.
        let refused = try server.connect()
        try refused.send(post)
        let answer = try #require(refused.readResponse())
        #expect(answer.status == 503)
        #expect(answer.header("Retry-After") == "5")
        #expect(refused.closedByServer())
        for client in running { #expect(client.readResponse()?.body.count == 61440) }
        let later = try server.connect()
        try later.send(post)
        #expect(later.readResponse()?.status == 200)
    }

    static let floodVariable = "GATEHOUSE_HTTP_BODY_FLOOD_CHILD"
    static let floodConnections = 160
    static let floodBudget = 16 << 20
    /// Resident memory the flood may add: the budget, plus slack for per-connection buffers and the allocator.
    static let floodRSSBound = 48 << 20

    /// 160 connections each send 960 KiB of a declared 1 MiB body and stall: about 160 MiB held without a
    /// budget. With a 16 MiB budget the server sheds the largest with 503 and `Retry-After`, its RSS stays
    /// under the bound, and a normal client is answered meanwhile. Runs in a child process, so the RSS
    /// measured is this scenario's alone.
    @Test func stalledBodyFloodStaysWithinBudget() throws {
        let text = try inChildProcess(test: "stalledBodyFloodStaysWithinBudget", variable: Self.floodVariable, Self.runFlood)
        if let figure = text.split(separator: "\n").first(where: { $0.contains("body flood:") }) { print(figure) }
    }

    static func runFlood() throws {
        let server = try TestServer {
            $0.maxBufferedBodyBytes = floodBudget
            $0.drainTimeout = .milliseconds(100)
        }
        defer { server.stop() }
        let before = memoryStatus("VmRSS")
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 960 * 1024)
        let request = Array("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1048576\r\n\r\n".utf8) + body
        let clients = try (0..<floodConnections).map { _ in try server.connect(timeout: 2) }
        var sent = [Int](repeating: 0, count: clients.count)
        var done = [Bool](repeating: false, count: clients.count)
        var normalAnswered = false
        let deadline = Date().addingTimeInterval(8)
        while done.contains(false) && Date() < deadline {
            var progress = false
            for index in clients.indices where !done[index] {
                let client = clients[index]
                if client.hasInput() {  // Answered or closed: it has been shed.
                    done[index] = true
                    continue
                }
                guard let count = client.sendAvailable(request[sent[index]...]) else {
                    done[index] = true
                    continue
                }
                sent[index] += count
                progress = progress || count > 0
                done[index] = sent[index] == request.count  // Stalled, 64 KiB short of its declared length.
            }
            if !normalAnswered && sent.reduce(0, +) > 2 * floodBudget {  // The budget is full by now.
                normalAnswered = try normalClientIsServed(server)
            }
            if !progress { usleep(2_000) }
        }
        usleep(200_000)
        // Socket buffers may have taken a whole body before its 503 came: count the answers now.
        let refused = clients.filter { $0.hasInput() && $0.readResponse()?.status == 503 }.count
        let after = memoryStatus("VmRSS")
        let peak = memoryStatus("VmHWM")
        let line = "body flood: RSS \(before >> 20) MiB before, \(after >> 20) MiB after, peak \(peak >> 20) MiB; "
            + "growth to peak \((peak - before) >> 20) MiB (bound \(floodRSSBound >> 20) MiB, budget \(floodBudget >> 20) MiB); "
            + "\(refused) of \(floodConnections) bodies refused with 503"
        print(line)
        #expect(peak - before < floodRSSBound, "\(line)")
        #expect(refused >= floodConnections / 2, "\(line)")
        #expect(normalAnswered, "a normal client during the flood")
        #expect(try normalClientIsServed(server), "after the flood")
        #expect(server.sink.lines.contains { $0.contains("body budget exhausted") })
    }

    /// A small POST and a GET from a fresh connection, answered in full.
    static func normalClientIsServed(_ server: TestServer) throws -> Bool {
        let client = try server.connect(timeout: 3)
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2048\r\n\r\n" + String(repeating: "n", count: 2048))
        let echo = client.readResponse()
        try client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        return echo?.status == 200 && echo?.body.count == 2048 && client.readResponse()?.status == 200
    }

    /// A size field of /proc/self/status (reported in kB), in bytes.
    static func memoryStatus(_ field: String) -> Int {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
              let kilobytes = Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }
}
