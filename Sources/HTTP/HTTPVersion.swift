/// An HTTP protocol version; only 1.0 and 1.1 are ever parsed.
public struct HTTPVersion: Sendable, Equatable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    public var description: String { "HTTP/\(major).\(minor)" }
}

/// Who sent a request: an IP peer (textual address) or a unix-socket client.
public enum PeerAddress: Sendable, Equatable, CustomStringConvertible {
    case ip(String, port: Int)
    case unix

    /// The text logged for this peer: the IP address or "unix".
    public var description: String {
        switch self {
        case .ip(let host, _): host
        case .unix: "unix"
        }
    }
}
