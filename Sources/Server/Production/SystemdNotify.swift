import FoundationEssentials
import Glibc

/// `sd_notify(3)` without libsystemd: one datagram to `$NOTIFY_SOCKET` (a path, or `@name` for the
/// abstract namespace). Does nothing when the variable is unset, so it is safe outside systemd.
public enum SystemdNotify {
    /// The socket from the environment, if any.
    public static var socketPath: String? {
        guard let value = ProcessInfo.processInfo.environment["NOTIFY_SOCKET"], !value.isEmpty else { return nil }
        return value
    }

    /// After the listeners are bound: `READY=1` with our pid.
    public static func ready(status: String? = nil) {
        var message = "READY=1\nMAINPID=\(getpid())"
        if let status { message += "\nSTATUS=\(status)" }
        send(message)
    }

    /// When a SIGHUP reload begins (systemd ≥ 253 wants the monotonic timestamp with it).
    public static func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let micros = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        send("RELOADING=1\nMONOTONIC_USEC=\(micros)")
    }

    /// When shutdown begins.
    public static func stopping() { send("STOPPING=1") }

    /// Sends `message`; returns false when there is no socket or the send failed (never fatal).
    @discardableResult
    public static func send(_ message: String, to path: String? = SystemdNotify.socketPath) -> Bool {
        guard let path, path.hasPrefix("/") || path.hasPrefix("@") else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(path.utf8)
        let abstract = pathBytes.first == UInt8(ascii: "@")
        if abstract { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        // Abstract names are exactly their bytes; paths include the terminating NUL.
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (abstract ? 0 : 1))
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), socketAddress, length) }
            }
        }
        return sent == bytes.count
    }
}
