/// Why the parser refused a request: the status to answer with and a short, safe reason for the log.
/// Every parse error closes the connection, because framing can no longer be trusted.
public struct HTTPParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public let status: Int
    public let reason: String

    public init(_ status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }

    public var description: String { "\(status) \(reason)" }
}
