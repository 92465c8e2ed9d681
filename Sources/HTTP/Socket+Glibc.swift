#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Thin wrappers over the socket, epoll and eventfd calls. Every call retries on EINTR and throws
/// `SystemError` naming the call; "would block" is reported as nil/false rather than thrown.
/// All unsafe pointer work for sockets lives in this file.
enum Sys {
    @inline(__always)
    private static func retrying<T: BinaryInteger>(_ name: String, _ body: () -> T) throws(SystemError) -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = Glibc.errno
            if code == EINTR { continue }
            throw SystemError(name, errno: code)
        }
    }

    static func isWouldBlock(_ code: Int32) -> Bool { code == EAGAIN || code == EWOULDBLOCK }

    static func close(_ fd: Int32) {
        // close(2) must not be retried on EINTR on Linux: the descriptor is already gone.
        _ = Glibc.close(fd)
    }

    // MARK: Listening

    /// Opens, binds and listens on a TCP address; returns the descriptor and the bound port.
    static func listenTCP(host: String, port: Int, backlog: Int32) throws -> (fd: Int32, port: Int) {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let family: Int32
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            family = AF_INET
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            family = AF_INET6
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
        } else {
            throw ListenAddress.ParseError(input: host)
        }
        let fd = try retrying("socket") { socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            if family == AF_INET6 { try setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1) }
            if family == AF_INET {
                _ = try retrying("bind") { withUnsafePointer(to: &v4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } } }
            } else {
                _ = try retrying("bind") { withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } } }
            }
            _ = try retrying("listen") { listen(fd, backlog) }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            _ = try retrying("getsockname") { withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } } }
            return (fd, peerAddress(storage).port)
        } catch {
            close(fd)
            throw error
        }
    }

    /// Opens a unix listener at `path`, replacing a stale socket file (never any other kind of file), mode 0660.
    static func listenUnix(path: String, backlog: Int32) throws -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { throw SystemError("bind(unix path too long)", errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw SystemError("bind(existing non-socket file)", errno: EEXIST) }
            unlink(path)
        }
        let fd = try retrying("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            _ = try retrying("bind") { withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } } }
            _ = try retrying("chmod") { chmod(path, 0o660) }
            _ = try retrying("listen") { listen(fd, backlog) }
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) throws(SystemError) {
        var value = value
        _ = try retrying("setsockopt") { setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) }
    }

    // MARK: Connections

    /// Accepts one connection; nil when none is pending.
    static func accept(_ listener: Int32, isUnix: Bool) throws(SystemError) -> (fd: Int32, peer: PeerAddress)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        while true {
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    gh_accept4(listener, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                }
            }
            if fd >= 0 {
                if isUnix { return (fd, .unix) }
                _ = try? setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
                let peer = peerAddress(storage)
                return (fd, .ip(peer.host, port: peer.port))
            }
            let code = Glibc.errno
            if code == EINTR || code == ECONNABORTED { continue }
            if isWouldBlock(code) { return nil }
            throw SystemError("accept4", errno: code)
        }
    }

    private static func peerAddress(_ storage: sockaddr_storage) -> (host: String, port: Int) {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var addr = address.pointee.sin_addr
                    inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
                    return (Self.text(text), Int(UInt16(bigEndian: address.pointee.sin_port)))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var addr = address.pointee.sin6_addr
                    inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
                    return (Self.text(text), Int(UInt16(bigEndian: address.pointee.sin6_port)))
                }
            }
        default:
            return ("unknown", 0)
        }
    }

    private static func text(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Reads into `buffer`; returns the byte count (0 at EOF) or nil when nothing is available.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        while true {
            let count = Glibc.recv(fd, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            let code = Glibc.errno
            if code == EINTR { continue }
            if isWouldBlock(code) { return nil }
            throw SystemError("recv", errno: code)
        }
    }

    /// Sends without raising SIGPIPE; returns bytes written (0 when the socket buffer is full).
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        while true {
            let count = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if count >= 0 { return count }
            let code = Glibc.errno
            if code == EINTR { continue }
            if isWouldBlock(code) { return 0 }
            throw SystemError("send", errno: code)
        }
    }

    static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    static func shutdownBoth(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    // MARK: epoll and eventfd

    static func epollCreate() throws(SystemError) -> Int32 {
        try retrying("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    /// Adds, modifies or removes interest in `fd`; the descriptor itself is the event's user data.
    static func epollControl(_ epoll: Int32, _ operation: Int32, _ fd: Int32, events: UInt32) throws(SystemError) {
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        _ = try retrying("epoll_ctl") { epoll_ctl(epoll, operation, fd, &event) }
    }

    /// Waits for events; returns how many entries of `events` were filled (0 on timeout or EINTR).
    static func epollWait(_ epoll: Int32, _ events: UnsafeMutableBufferPointer<epoll_event>, timeoutMilliseconds: Int32) throws(SystemError) -> Int {
        let count = epoll_wait(epoll, events.baseAddress, Int32(events.count), timeoutMilliseconds)
        if count >= 0 { return Int(count) }
        let code = Glibc.errno
        if code == EINTR { return 0 }  // The caller loops and recomputes its timeout, which is the retry.
        throw SystemError("epoll_wait", errno: code)
    }

    static func eventFD() throws(SystemError) -> Int32 {
        try retrying("eventfd") { eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC)) }
    }

    /// Wakes whoever polls the eventfd; a full counter already means "awake", so errors are ignored.
    static func signalEventFD(_ fd: Int32) {
        var one: UInt64 = 1
        while Glibc.write(fd, &one, 8) < 0 && Glibc.errno == EINTR {}
    }

    static func drainEventFD(_ fd: Int32) {
        var value: UInt64 = 0
        while Glibc.read(fd, &value, 8) < 0 && Glibc.errno == EINTR {}
    }

    /// Monotonic clock in nanoseconds, for deadlines.
    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    static func ignoreSIGPIPE() {
        signal(SIGPIPE, SIG_IGN)
    }
}
