import Foundation

/// A `bench` subcommand. Implementations print one JSON object per line
/// on stdout so scripts can collect results without parsing prose.
protocol BenchCommand: Sendable {
    /// The subcommand word, e.g. "crypto".
    static var name: String { get }
    /// One-line usage shown by `bench --help`.
    static var usage: String { get }
    /// Runs with the arguments after the subcommand word.
    static func run(arguments: [String]) throws
}

/// Every subcommand. Others append here when adding a file (e.g. `HTTPBench.self`).
enum BenchRegistry {
    static let commands: [any BenchCommand.Type] = [
        CryptoBench.self,
        OpenLoopBench.self,
        SeedBench.self,
    ]

    static func command(named name: String) -> (any BenchCommand.Type)? {
        commands.first { $0.name == name }
    }

    static func usage() -> String {
        "usage:\n" + commands.map { "  bench \($0.usage)\n" }.joined()
    }
}

/// Problems with a subcommand's own arguments.
struct BenchUsageError: Error, CustomStringConvertible {
    let description: String
}

/// Small shared helpers for option parsing and result printing.
enum BenchSupport {
    /// Reads `--flag value` pairs; unknown flags are an error so typos do not go unnoticed.
    static func options(_ arguments: [String], allowed: Set<String>) throws -> [String: String] {
        var result: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let flag = arguments[index]
            guard allowed.contains(flag), index + 1 < arguments.count else {
                throw BenchUsageError(description: "unexpected argument \(flag)")
            }
            result[flag] = arguments[index + 1]
            index += 2
        }
        return result
    }

    /// Prints `{"name":…, key: value}` as one JSON line.
    static func emit(_ name: String, _ key: String, _ value: Double) {
        print(#"{"name":"\#(name)","\#(key)":\#(String(format: "%.1f", value))}"#)
    }

    /// How throughput is timed.
    enum Clock: String {
        /// Process CPU time, like `openssl speed` by default: stable when
        /// other work shares the cores, and directly comparable to it.
        case cpu
        /// Elapsed wall-clock time, like `openssl speed -elapsed`.
        case wall
    }

    /// Seconds on `clock` since an arbitrary origin.
    static func now(_ clock: Clock) -> Double {
        var spec = timespec()
        clock_gettime(clock == .cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Runs `body` repeatedly for about `seconds` of wall time and returns
    /// operations per second of `clock` time.
    static func throughput(seconds: Double, clock: Clock, _ body: () throws -> Void) rethrows -> Double {
        // Warm up caches and lazy OpenSSL initialisation outside the timed window.
        for _ in 0..<10 { try body() }
        let wallStart = now(.wall)
        let start = now(clock)
        var operations = 0
        repeat {
            try body()
            operations += 1
        } while now(.wall) - wallStart < seconds
        return Double(operations) / (now(clock) - start)
    }
}
