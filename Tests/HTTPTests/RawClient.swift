#if canImport(Glibc)
import Glibc
#endif
import HTTP

/// A deliberately dumb blocking socket client for integration tests: raw bytes in, raw bytes out.
/// `@unchecked Sendable`: tests may send from one thread while reading on another; `send` touches only the descriptor.
final class RawClient: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// One parsed response.
    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    deinit { Glibc.close(fd) }

    /// `source` binds an IPv4 client to that local address first (e.g. 127.0.0.2, to be another client).
    static func connect(_ address: BoundAddress, receiveTimeout: Double = 5, source: String? = nil) throws -> RawClient {
        let fd: Int32
        switch address {
        case .tcp(let host, let port):
            let connectHost = host == "0.0.0.0" ? "127.0.0.1" : (host == "::" ? "::1" : host)
            if connectHost.contains(":") {
                fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
                var addr = sockaddr_in6()
                addr.sin6_family = sa_family_t(AF_INET6)
                addr.sin6_port = in_port_t(UInt16(port).bigEndian)
                inet_pton(AF_INET6, connectHost, &addr.sin6_addr)
                let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
                guard rc == 0 else { Glibc.close(fd); throw Failure(description: "connect errno \(errno)") }
            } else {
                fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                if let source {
                    var local = sockaddr_in()
                    local.sin_family = sa_family_t(AF_INET)
                    inet_pton(AF_INET, source, &local.sin_addr)
                    let rc = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
                    guard rc == 0 else { Glibc.close(fd); throw Failure(description: "bind \(source) errno \(errno)") }
                }
                var addr = sockaddr_in()
                addr.sin_family = sa_family_t(AF_INET)
                addr.sin_port = in_port_t(UInt16(port).bigEndian)
                inet_pton(AF_INET, connectHost, &addr.sin_addr)
                let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
                guard rc == 0 else { Glibc.close(fd); throw Failure(description: "connect errno \(errno)") }
            }
        case .unix(let path):
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &addr.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            }
            let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            guard rc == 0 else { Glibc.close(fd); throw Failure(description: "connect unix errno \(errno)") }
        }
        var timeout = timeval(tv_sec: Int(receiveTimeout), tv_usec: Int((receiveTimeout - Double(Int(receiveTimeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return RawClient(fd: fd)
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "send errno \(errno)")
            }
            offset += count
        }
    }

    /// Sends what the socket takes now, without blocking: the bytes sent (0 when full), nil once the connection failed.
    func sendAvailable(_ bytes: ArraySlice<UInt8>) -> Int? {
        let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        if count >= 0 { return count }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : nil
    }

    /// Whether the server has sent something or ended the connection, without blocking or consuming it.
    func hasInput() -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        return count >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    func shutdownWrite() { Glibc.shutdown(fd, Int32(SHUT_WR)) }

    /// Closes with SO_LINGER 0 so the kernel sends RST.
    func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Reads more bytes; false at EOF, reset or timeout.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
            if count < 0 && errno == EINTR { continue }
            return false
        }
    }

    /// Whether `GET /healthz` on this connection is answered 200 (false if it was closed or refused).
    func answersHealthz() -> Bool {
        (try? send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")) != nil && readResponse()?.status == 200
    }

    /// Reads one response; nil if the connection ended (EOF, reset or timeout) first.
    func readResponse(head: Bool = false) -> Response? {
        while true {
            if let end = findHeaderEnd() {
                let headText = String(decoding: buffer[0..<end], as: UTF8.self)
                var lines = headText.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
                var headers: [(String, String)] = []
                for line in lines where !line.isEmpty {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    headers.append((String(parts[0]), parts.count > 1 ? String(parts[1].drop { $0 == " " }) : ""))
                }
                let length = head || status == 204 || status == 304 || status < 200
                    ? 0 : Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
                while buffer.count < end + 4 + length {
                    if !fill() { return nil }
                }
                let body = Array(buffer[(end + 4)..<(end + 4 + length)])
                buffer.removeSubrange(0..<(end + 4 + length))
                return Response(status: status, headers: headers, body: body)
            }
            if !fill() { return nil }
        }
    }

    /// Whether the server closed the connection (EOF or reset) with nothing further sent, within the receive timeout.
    func closedByServer() -> Bool {
        if !buffer.isEmpty { return false }
        var byte: UInt8 = 0
        while true {
            let count = recv(fd, &byte, 1, 0)
            if count == 0 { return true }
            if count < 0 {
                if errno == EINTR { continue }
                return errno == ECONNRESET
            }
            buffer.append(byte)
            return false
        }
    }

    /// Every remaining byte until EOF/reset/timeout, including anything already buffered.
    func readAll() -> [UInt8] {
        while fill() {}
        defer { buffer = [] }
        return buffer
    }

    private func findHeaderEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}
