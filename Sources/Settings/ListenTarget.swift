/// Where the server listens: `host:port` (IPv4, `[IPv6]`, or a name) or `unix:/path`.
public enum ListenTarget: Sendable, Equatable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case unix(path: String)

    public static func parse(_ text: String) -> Result<ListenTarget, ParseFailure> {
        let expected = "expected host:port (e.g. 127.0.0.1:8080 or [::1]:8080) or unix:/absolute/path"
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard path.hasPrefix("/"), path.utf8.count < 108, !path.utf8.contains(0) else {
                return .failure(ParseFailure("\(expected); a unix socket path must be absolute and shorter than 108 bytes, found \"\(text)\""))
            }
            return .success(.unix(path: path))
        }
        // C APIs would stop at a NUL and see another address than the one written.
        guard !text.utf8.contains(0) else { return .failure(ParseFailure("\(expected); NUL is not allowed, found \(text.debugDescription)")) }
        var host: Substring
        var portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return .failure(ParseFailure("\(expected), found \"\(text)\""))
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            guard host.contains(":") else { return .failure("\(expected); brackets are for IPv6 addresses, found \"\(text)\"") }
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                return .failure(ParseFailure("\(expected), found \"\(text)\""))
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { return .failure("\(expected); the host is missing, found \"\(text)\"") }
        guard let port = ValueParsers.digits(String(portText)), (0...65_535).contains(port) else {
            return .failure(ParseFailure("\(expected); the port must be 0 to 65535, found \"\(text)\""))
        }
        return .success(.tcp(host: String(host), port: port))
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }
}
