import Glibc
import Synchronization

/// Where finished log lines go. Lines are written whole, one `write(2)` each, so
/// concurrent threads never interleave inside a line.
public final class LogSink: Sendable {
    private let descriptor: Mutex<Int32>
    private let captured: Mutex<[String]?>

    /// A sink writing to a file descriptor (standard error by default).
    public init(descriptor: Int32 = 2) {
        self.descriptor = Mutex(descriptor)
        self.captured = Mutex(nil)
    }

    /// A sink that keeps lines in memory, for tests.
    public static func memory() -> LogSink {
        let sink = LogSink(descriptor: -1)
        sink.captured.withLock { $0 = [] }
        return sink
    }

    /// Lines kept by a memory sink.
    public var lines: [String] { captured.withLock { $0 ?? [] } }

    /// Points the sink at another descriptor (used when SIGHUP reopens a log file).
    public func redirect(to newDescriptor: Int32) {
        descriptor.withLock { $0 = newDescriptor }
    }

    /// Writes `text` and a newline at once, unbuffered (the daemon's banner and fatal messages).
    public func write(line text: String) { write(Array(text.utf8)) }

    func write(_ line: [UInt8]) {
        let keptInMemory = captured.withLock { lines -> Bool in
            guard lines != nil else { return false }
            lines!.append(String(decoding: line, as: UTF8.self))
            return true
        }
        if keptInMemory { return }
        var bytes = line
        bytes.append(UInt8(ascii: "\n"))
        descriptor.withLock { fd in
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { raw in
                    Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                }
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // Nowhere left to report a failed log write.
                }
                offset += written
            }
        }
    }
}
