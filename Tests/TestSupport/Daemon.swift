import Foundation

/// A real `idp` process started from the build directory in a temporary working directory.
public final class Daemon: @unchecked Sendable {
    public let process: Process
    public let directory: TemporaryDirectory
    /// The TCP port it bound (from its startup banner).
    public private(set) var port: Int = 0
    private let stdout = Pipe()
    private let stderr = Pipe()
    private var collectedStandardError: OutputCollector!

    /// The directory holding the built executables (next to the test bundle).
    public static var binaryDirectory: URL {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }

    public static func binary(_ name: String) -> String { binaryDirectory.appendingPathComponent(name).path }

    /// Starts `idp` with `environment` (merged over a minimal one) and `arguments`; waits for its banner.
    public init(environment: [String: String] = [:], arguments: [String] = [], directory: TemporaryDirectory? = nil,
                waitForBanner: Bool = true) throws {
        self.directory = try directory ?? TemporaryDirectory("idp")
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary("idp"))
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: self.directory.path)
        var env = ["PATH": "/usr/bin:/bin", "IDP_LISTEN": "127.0.0.1:0", "IDP_ISSUER": "http://127.0.0.1/"]
        env.merge(environment) { $1 }
        process.environment = env
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        collectedStandardError = OutputCollector(stderr.fileHandleForReading)
        if waitForBanner { try readBanner() }
    }

    /// How long a start may take before the test fails instead of waiting on (two minutes: a
    /// daemon waiting for PostgreSQL gives up sooner by itself).
    static let startLimit: TimeInterval = 120

    /// How long a stop may take before the daemon is killed (a graceful drain takes seconds).
    static let stopLimit: TimeInterval = 30

    private func readBanner() throws {
        var line = Data()
        let handle = stdout.fileHandleForReading
        let deadline = Date().addingTimeInterval(Self.startLimit)
        while !line.contains(UInt8(ascii: "\n")) {
            guard Self.waitUntilReadable(handle, before: deadline) else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw DaemonError.noBanner("none within \(Int(Self.startLimit)) s: \(standardError)")
            }
            let chunk = handle.availableData
            if chunk.isEmpty {
                throw DaemonError.exited(status: waitForExit(), standardError: standardError)
            }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
              let port = Int(text[range].split(separator: ":").last ?? "") else {
            throw DaemonError.noBanner(text)
        }
        self.port = port
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public var standardError: String {
        collectedStandardError.text
    }

    /// Sends `signal` and waits for the exit status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        process.stop(sending: signal, within: Self.stopLimit)
        return waitForExit()
    }

    /// Whether `handle` has data or its end before `deadline` (poll(2): availableData would block).
    static func waitUntilReadable(_ handle: FileHandle, before deadline: Date) -> Bool {
        var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let milliseconds = Int32(max(0, min(deadline.timeIntervalSinceNow * 1000, 60_000)))
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 || (ready < 0 && errno != EINTR) { return true }  // An error: availableData reports it.
            if Date() >= deadline { return false }
        }
    }

    /// Waits for the process to exit by itself (e.g. after a startup error) and for the end of
    /// what it wrote to stderr.
    public func waitForExit() -> Int32 {
        process.waitUntilExit()
        // Its stderr ends when it exits (nothing else holds the pipe); bounded all the same.
        _ = collectedStandardError.waitForEnd(timeout: 10)
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

public enum DaemonError: Error, CustomStringConvertible {
    case exited(status: Int32, standardError: String)
    case noBanner(String)

    public var description: String {
        switch self {
        case .exited(let status, let standardError): "idp exited with \(status): \(standardError)"
        case .noBanner(let text): "idp printed no banner: \(text)"
        }
    }
}

extension Daemon {
    /// A TCP port that was free a moment ago (bind to port 0, read it, close).
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs `idp-admin` against this daemon's database.
    public func admin(_ arguments: [String], input: String = "") throws -> (status: Int32, stdout: String, stderr: String) {
        try AdminProcess.run(arguments, environment: [:], directory: directory.path, input: input)
    }
}

/// Reads a pipe to its end on a thread of its own, keeping what arrived: what a test reads after
/// the writer exited is then all of it (a readability handler could still hold the last chunk).
/// It holds only the handle, so a `Daemon` nobody stopped still deinitialises and is killed.
final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let ended = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while case let chunk = handle.availableData, !chunk.isEmpty {
                lock.lock()
                data.append(chunk)
                lock.unlock()
            }
            ended.signal()
        }
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    /// Waits up to `timeout` for the end of the output; whether it came.
    func waitForEnd(timeout: TimeInterval) -> Bool {
        guard ended.wait(timeout: .now() + timeout) == .success else { return false }
        ended.signal()  // Later callers see the end too.
        return true
    }
}
