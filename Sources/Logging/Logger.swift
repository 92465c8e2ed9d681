import FoundationEssentials
import Glibc
import Synchronization

/// Writes one JSON object per line: `time`, `level`, `event`, then the fields in key order.
///
/// Callers pass only values that are safe to log; secrets (tokens, codes, passwords,
/// cookies, Authorization values, query strings) must never be handed to a logger.
public struct Logger: Sendable {
    /// The least severe level written. Assigning it gives this copy its own threshold;
    /// `changeLevel(to:)` changes it for every copy sharing the threshold (SIGHUP reload).
    public var level: LogLevel {
        get { threshold.level }
        set { threshold = LevelThreshold(newValue) }
    }
    public let sink: LogSink
    private var threshold: LevelThreshold
    private let now: @Sendable () -> Date

    public init(level: LogLevel = .info, sink: LogSink = LogSink(), now: @escaping @Sendable () -> Date = Date.init) {
        self.threshold = LevelThreshold(level)
        self.sink = sink
        self.now = now
    }

    /// Changes the level for this logger and every copy made from it, thread-safely, at runtime.
    public func changeLevel(to newLevel: LogLevel) { threshold.level = newLevel }

    public func isEnabled(_ candidate: LogLevel) -> Bool { candidate >= threshold.level }

    public func log(_ candidate: LogLevel, _ event: String, _ fields: [String: LogValue] = [:]) {
        guard isEnabled(candidate) else { return }
        sink.write(Self.render(time: now(), level: candidate, event: event, fields: fields))
    }

    public func debug(_ event: String, _ fields: [String: LogValue] = [:]) { log(.debug, event, fields) }
    public func info(_ event: String, _ fields: [String: LogValue] = [:]) { log(.info, event, fields) }
    public func warning(_ event: String, _ fields: [String: LogValue] = [:]) { log(.warning, event, fields) }
    public func error(_ event: String, _ fields: [String: LogValue] = [:]) { log(.error, event, fields) }

    static func render(time: Date, level: LogLevel, event: String, fields: [String: LogValue]) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(96 + fields.count * 32)
        line.append(contentsOf: "{\"time\":\"".utf8)
        line.append(contentsOf: Self.timestamp(time).utf8)
        line.append(contentsOf: "\",\"level\":\"".utf8)
        line.append(contentsOf: level.rawValue.utf8)
        line.append(contentsOf: "\",\"event\":".utf8)
        JSONText.appendQuoted(event, to: &line)
        for key in fields.keys.sorted() {
            line.append(UInt8(ascii: ","))
            JSONText.appendQuoted(key, to: &line)
            line.append(UInt8(ascii: ":"))
            JSONText.append(fields[key]!, to: &line)
        }
        line.append(UInt8(ascii: "}"))
        return line
    }

    /// RFC 3339 UTC with milliseconds, e.g. `2026-11-29T20:53:05.123Z`.
    /// The part up to the seconds is formatted once per second and shared.
    static func timestamp(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = millis / 1000
        let prefix = secondPrefix.withLock { cache -> String in
            if cache.second == seconds { return cache.text }
            cache = (seconds, formatSeconds(seconds))
            return cache.text
        }
        let fraction = Int(millis % 1000)
        return prefix + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + String(fraction) + "Z"
    }

    private static let secondPrefix = Mutex<(second: Int64, text: String)>((-1, ""))

    /// `YYYY-MM-DDTHH:MM:SS.` for a Unix time in seconds.
    private static func formatSeconds(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
    }
}

/// A level shared by copies of a `Logger`, read on every log call (one relaxed atomic load).
final class LevelThreshold: Sendable {
    private let rank: Atomic<Int>

    init(_ level: LogLevel) { rank = Atomic(LevelThreshold.rank(of: level)) }

    var level: LogLevel {
        get { LogLevel.allCases[rank.load(ordering: .relaxed)] }
        set { rank.store(LevelThreshold.rank(of: newValue), ordering: .relaxed) }
    }

    private static func rank(of level: LogLevel) -> Int { LogLevel.allCases.firstIndex(of: level) ?? 1 }
}
