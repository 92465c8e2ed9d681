import FoundationEssentials
import Glibc
import Logging
import Synchronization

/// The `log_file` setting: a descriptor the logger writes to, reopened on SIGHUP so logrotate can move the file.
public final class LogFile: Sendable {
    public let path: String
    public let sink: LogSink
    private let current: Mutex<Int32>

    /// Opens (creating with mode 0600) `path` for appending.
    public init(path: String) throws {
        self.path = path
        let fd = try Self.open(path)
        current = Mutex(fd)
        sink = LogSink(descriptor: fd)
    }

    /// Opens the path again and points the sink at it, then closes the old descriptor.
    /// On failure the old descriptor stays in use and the error is returned.
    public func reopen() throws {
        let fd = try Self.open(path)
        let old = current.withLock { previous -> Int32 in
            let old = previous
            previous = fd
            return old
        }
        sink.redirect(to: fd)  // Under the sink's lock: no write can still be using `old` afterwards.
        Glibc.close(old)
    }

    public struct OpenError: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "cannot open log_file \(path): \(reason)" }
    }

    private static func open(_ path: String) throws -> Int32 {
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw OpenError(path: path, reason: String(cString: strerror(errno))) }
        return fd
    }
}
