import Foundation

/// Writes one JSON object per line: `time`, `level`, `event`, then the fields in key order.
///
/// Callers pass only values that are safe to log; secrets (tokens, codes, passwords,
/// cookies, Authorization values, query strings) must never be handed to a logger.
public struct Logger: Sendable {
    public var level: LogLevel
    public let sink: LogSink
    private let now: @Sendable () -> Date

    public init(level: LogLevel = .info, sink: LogSink = LogSink(), now: @escaping @Sendable () -> Date = Date.init) {
        self.level = level
        self.sink = sink
        self.now = now
    }

    public func isEnabled(_ candidate: LogLevel) -> Bool { candidate >= level }

    public func log(_ candidate: LogLevel, _ event: String, _ fields: [String: LogValue] = [:]) {
        guard isEnabled(candidate) else { return }
        sink.write(Self.render(time: now(), level: candidate, event: event, fields: fields))
    }

    public func debug(_ event: String, _ fields: [String: LogValue] = [:]) { log(.debug, event, fields) }
    public func info(_ event: String, _ fields: [String: LogValue] = [:]) { log(.info, event, fields) }
    public func warning(_ event: String, _ fields: [String: LogValue] = [:]) { log(.warning, event, fields) }
    public func error(_ event: String, _ fields: [String: LogValue] = [:]) { log(.error, event, fields) }

    static func render(time: Date, level: LogLevel, event: String, fields: [String: LogValue]) -> String {
        var line = "{\"time\":\(JSONText.quote(Self.timestamp(time))),\"level\":\"\(level.rawValue)\",\"event\":\(JSONText.quote(event))"
        for key in fields.keys.sorted() {
            line += ",\(JSONText.quote(key)):\(JSONText.render(fields[key]!))"
        }
        line += "}"
        return line
    }

    /// RFC 3339 UTC with milliseconds, e.g. `2026-11-29T20:53:05.123Z`.
    static func timestamp(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(millis / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let fraction = Int(millis % 1000)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(fraction), 3))Z"
    }
}
