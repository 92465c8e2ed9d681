#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// Runs a program with posix_spawnp, writes `input` to its stdin and waits, bounded by `timeout`.
enum ChildProcess {
    struct Result {
        let status: Int32
        let signal: Int32?
        let standardError: String
    }

    static func run(_ command: [String], input: [UInt8], timeout: Duration,
                    cancellation: DeliveryCancellation?) throws(DeliveryError) -> Result {
        var stdinPipe: [Int32] = [-1, -1]
        var stderrPipe: [Int32] = [-1, -1]
        guard closeOnExecPipe(&stdinPipe) else { throw DeliveryError(.command, "pipe: \(errorText())") }
        guard closeOnExecPipe(&stderrPipe) else {
            close(stdinPipe[0]); close(stdinPipe[1])
            throw DeliveryError(.command, "pipe: \(errorText())")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)

        // The daemon's own IDP_* variables (the key-encryption key, the SMTP password) stay with it.
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("IDP_") }.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let spawned = withCStrings(command) { argv in
            withCStrings(environment) { envp in posix_spawnp(&pid, argv[0]!, &actions, nil, argv, envp) }
        }
        close(stdinPipe[0])
        close(stderrPipe[1])
        guard spawned == 0 else {
            close(stdinPipe[1]); close(stderrPipe[0])
            throw DeliveryError(.command, "cannot run \(command[0]): \(String(cString: strerror(spawned)))")
        }

        // Write all of stdin, then read stderr to its end (small: a diagnostic line or two).
        _ = signal(SIGPIPE, SIG_IGN)
        var offset = 0
        while offset < input.count {
            let written = input.withUnsafeBytes { write(stdinPipe[1], $0.baseAddress! + offset, input.count - offset) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { break }  // The program closed its stdin early; its exit status says why.
            offset += written
        }
        close(stdinPipe[1])
        _ = fcntl(stderrPipe[0], F_SETFL, fcntl(stderrPipe[0], F_GETFL) | O_NONBLOCK)
        var errorOutput: [UInt8] = []

        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while true {
            drain(stderrPipe[0], into: &errorOutput)
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid { break }
            if waited < 0, errno != EINTR { status = 127 << 8; break }
            if ContinuousClock.now > deadline || cancellation?.isCancelled == true {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                close(stderrPipe[0])
                throw DeliveryError(cancellation?.isCancelled == true ? .cancelled : .timeout, "\(command[0]) did not finish in time")
            }
            usleep(10_000)
        }
        drain(stderrPipe[0], into: &errorOutput)
        close(stderrPipe[0])
        let signalled = status & 0x7F
        return Result(status: signalled == 0 ? (status >> 8) & 0xFF : -1, signal: signalled == 0 ? nil : signalled,
                      standardError: String(decoding: errorOutput.prefix(4096), as: UTF8.self))
    }

    private static func drain(_ descriptor: Int32, into output: inout [UInt8]) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while output.count < 65_536 {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            output += buffer[..<count]
        }
    }

    /// Both ends close on exec (the child gets its ends only through dup2), so no other
    /// program started meanwhile inherits them.
    private static func closeOnExecPipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }

    /// A NULL-terminated `char *[]` of `strings`, valid inside `body`.
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}
