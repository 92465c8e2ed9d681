#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTP
import Testing

/// I16: running out of descriptors on accept must not spin, and serving resumes once descriptors free up.
/// RLIMIT_NOFILE is process-wide, so the scenario runs in a child copy of the test binary.
@Suite struct AcceptExhaustionTests {
    static let childVariable = "GATEHOUSE_HTTP_EMFILE_CHILD"

    @Test func emfileOnAcceptBacksOffWithoutSpinning() throws {
        try inChildProcess(test: "emfileOnAcceptBacksOffWithoutSpinning", variable: Self.childVariable, Self.runChildScenario)
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func runChildScenario() throws {
        let server = try TestServer()
        defer { server.stop() }
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let original = limit
        limit.rlim_cur = rlim_t(open + 12)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        defer {
            var restore = original
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &restore)
        }
        // Each client costs one descriptor here and one in the server; stop when connect itself fails.
        var clients: [RawClient] = []
        while clients.count < 40, let client = try? server.connect() {
            clients.append(client)
        }
        #expect(clients.count >= 6)
        usleep(300_000)
        let before = cpuSeconds()
        usleep(1_000_000)
        let spent = cpuSeconds() - before
        #expect(spent < 0.5, "CPU spent while out of descriptors: \(spent) s")
        #expect(server.sink.lines.contains { $0.contains("http_accept_paused") })

        clients.removeAll()  // Frees descriptors; the server resumes accepting within its back-off.
        var restore = original
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &restore)
        usleep(300_000)
        let response = try server.roundTrip("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(response?.status == 200)
    }
}
