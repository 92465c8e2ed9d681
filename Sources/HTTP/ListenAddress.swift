/// A configured listener: TCP host and port, or a unix socket path.
public enum ListenAddress: Sendable, Equatable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case unix(path: String)

    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        public let input: String
        public var description: String { "invalid listen address \"\(input)\"" }
    }

    /// Parses "127.0.0.1:8080", "[::1]:8080", "0.0.0.0:80", ":8080" (all IPv4 interfaces) or "unix:/run/idp.sock".
    public init(parsing text: String) throws {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard path.hasPrefix("/") || path.hasPrefix(".") , !path.isEmpty else { throw ParseError(input: text) }
            self = .unix(path: path)
            return
        }
        let host: String
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw ParseError(input: text) }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":"), !host.isEmpty, host.contains(":") else { throw ParseError(input: text) }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw ParseError(input: text) }
            let hostPart = text[..<colon]
            guard !hostPart.contains(":") else { throw ParseError(input: text) }  // Bare IPv6 needs brackets.
            host = hostPart.isEmpty ? "0.0.0.0" : String(hostPart)
            portText = text[text.index(after: colon)...]
        }
        guard !portText.isEmpty, portText.count <= 5, portText.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              let port = Int(portText), port <= 65535 else { throw ParseError(input: text) }
        self = .tcp(host: host, port: port)
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }
}

/// What a listener actually bound (port 0 resolved to the real port).
public enum BoundAddress: Sendable, Equatable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case unix(path: String)

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }
}
