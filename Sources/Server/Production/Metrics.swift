import Crypto
import FoundationEssentials
import Synchronization

/// A small thread-safe Prometheus registry: counters, callback gauges and fixed-bucket histograms,
/// rendered in the text exposition format 0.0.4. Every method may be called from any thread.
///
/// Label values must come from small fixed sets (route patterns, result codes): never put user
/// input, ids or addresses in a label, or the series count grows without bound.
public final class MetricsRegistry: Sendable {
    private let families = Mutex<[any MetricFamily]>([])

    public init() {}

    /// Registers a counter; `labels` are the label names, values are passed in the same order to `increment`.
    public func counter(_ name: String, help: String, labels: [String] = []) -> Counter {
        register(Counter(name: name, help: help, labelNames: labels))
    }

    /// Registers a histogram with fixed upper bounds (ascending; `+Inf` is implied).
    public func histogram(_ name: String, help: String, labels: [String] = [], buckets: [Double] = Histogram.defaultBuckets) -> Histogram {
        register(Histogram(name: name, help: help, labelNames: labels, buckets: buckets))
    }

    /// Registers a gauge whose value is read from `value` at every scrape (keep it cheap; it runs on the admin listener).
    public func gauge(_ name: String, help: String, labels: [String: String] = [:], value: @escaping @Sendable () -> Double) {
        _ = register(CallbackGauge(name: name, help: help, labels: labels, value: value))
    }

    /// Registers a counter kept elsewhere (a process-wide total), read from `value` at every scrape.
    public func counter(_ name: String, help: String, value: @escaping @Sendable () -> Double) {
        _ = register(CallbackGauge(name: name, help: help, labels: [:], type: "counter", value: value))
    }

    private func register<Family: MetricFamily>(_ family: Family) -> Family {
        families.withLock { list in
            precondition(!list.contains { $0.name == family.name }, "metric \(family.name) registered twice")
            list.append(family)
        }
        return family
    }

    /// The whole registry in Prometheus text format 0.0.4.
    public func render() -> String {
        var out = ""
        for family in families.withLock({ $0 }) {
            out += "# HELP \(family.name) \(Self.escapeHelp(family.help))\n# TYPE \(family.name) \(family.type)\n"
            family.render(into: &out)
        }
        return out
    }

    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    static func escapeHelp(_ text: String) -> String { escape(text, quotes: false) }

    static func labelText(_ names: [String], _ values: [String], extra: (String, String)? = nil) -> String {
        var pairs = zip(names, values).map { "\($0)=\"\(escapeLabel($1))\"" }
        if let extra { pairs.append("\(extra.0)=\"\(extra.1)\"") }
        return pairs.isEmpty ? "" : "{" + pairs.joined(separator: ",") + "}"
    }

    static func escapeLabel(_ text: String) -> String { escape(text, quotes: true) }

    /// Backslash, newline and (in label values) double quote escaped, per the text exposition format.
    /// Scalar by scalar, so the "\n" of a "\r\n" pair is escaped too.
    private static func escape(_ text: String, quotes: Bool) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out.append(contentsOf: #"\\"#.unicodeScalars)
            case "\n": out.append(contentsOf: #"\n"#.unicodeScalars)
            case "\"" where quotes: out.append(contentsOf: #"\""#.unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    static func number(_ value: Double) -> String {
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value.isNaN { return "NaN" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

protocol MetricFamily: Sendable {
    var name: String { get }
    var help: String { get }
    var type: String { get }
    func render(into out: inout String)
}

/// A monotonically increasing count, per combination of label values.
public final class Counter: MetricFamily {
    public let name: String
    let help: String
    let labelNames: [String]
    var type: String { "counter" }
    private let values = Striped<[[String]: Double]> { [:] }

    init(name: String, help: String, labelNames: [String]) {
        self.name = name
        self.help = help
        self.labelNames = labelNames
        // A counter without labels is exported as 0 from the start, so rate() works from the first scrape.
        if labelNames.isEmpty { values.withLock { $0[[]] = 0 } }
    }

    /// All series, summed over the stripes.
    private func merged() -> [[String]: Double] {
        values.snapshot().reduce(into: [:]) { total, stripe in total.merge(stripe, uniquingKeysWith: +) }
    }

    /// Adds `amount` (≥ 0) to the series for `labelValues` (one per label name, in order).
    public func increment(_ labelValues: String..., by amount: Double = 1) {
        increment(labelValues: labelValues, by: amount)
    }

    public func increment(labelValues: [String], by amount: Double = 1) {
        precondition(labelValues.count == labelNames.count && amount >= 0, "\(name): wrong labels or negative amount")
        values.withLock { $0[labelValues, default: 0] += amount }
    }

    /// The current value of one series (0 if never incremented).
    public func value(_ labelValues: String...) -> Double { merged()[labelValues] ?? 0 }

    func render(into out: inout String) {
        for (labels, value) in merged().sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            out += name + MetricsRegistry.labelText(labelNames, labels) + " " + MetricsRegistry.number(value) + "\n"
        }
    }
}

/// Observations counted into fixed cumulative buckets, with their sum and count.
public final class Histogram: MetricFamily {
    /// Seconds, suited to request and query latencies: 1 ms to 10 s.
    public static let defaultBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    struct Series {
        var counts: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0

        mutating func record(_ value: Double, slot: Int?) {
            if let slot { counts[slot] += 1 }
            sum += value
            count += 1
        }

        mutating func add(_ other: Series) {
            for index in counts.indices { counts[index] += other.counts[index] }
            sum += other.sum
            count += other.count
        }
    }

    public let name: String
    let help: String
    let labelNames: [String]
    let buckets: [Double]
    var type: String { "histogram" }
    private let series = Striped<[[String]: Series]> { [:] }

    init(name: String, help: String, labelNames: [String], buckets: [Double]) {
        precondition(buckets == buckets.sorted() && !buckets.isEmpty, "\(name): buckets must ascend")
        self.name = name
        self.help = help
        self.labelNames = labelNames
        self.buckets = buckets
        if labelNames.isEmpty { series.withLock { $0[[]] = Series(counts: Array(repeating: 0, count: buckets.count)) } }
    }

    public func observe(_ value: Double, _ labelValues: String...) {
        observe(value, labelValues: labelValues)
    }

    public func observe(_ value: Double, labelValues: [String]) {
        precondition(labelValues.count == labelNames.count, "\(name): wrong labels")
        let slot = buckets.firstIndex { value <= $0 }
        let empty = buckets.count
        series.withLock { all in
            all[labelValues, default: Series(counts: Array(repeating: 0, count: empty))].record(value, slot: slot)
        }
    }

    /// All series, summed over the stripes.
    private func merged() -> [[String]: Series] {
        series.snapshot().reduce(into: [:]) { total, stripe in
            for (labels, entry) in stripe {
                if total[labels] == nil { total[labels] = entry } else { total[labels]!.add(entry) }
            }
        }
    }

    /// Observations so far for one series.
    public func count(_ labelValues: String...) -> UInt64 { merged()[labelValues]?.count ?? 0 }

    func render(into out: inout String) {
        for (labels, entry) in merged().sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            var cumulative: UInt64 = 0
            for (index, bound) in buckets.enumerated() {
                cumulative += entry.counts[index]
                out += name + "_bucket" + MetricsRegistry.labelText(labelNames, labels, extra: ("le", MetricsRegistry.number(bound)))
                    + " \(cumulative)\n"
            }
            out += name + "_bucket" + MetricsRegistry.labelText(labelNames, labels, extra: ("le", "+Inf")) + " \(entry.count)\n"
            out += name + "_sum" + MetricsRegistry.labelText(labelNames, labels) + " " + MetricsRegistry.number(entry.sum) + "\n"
            out += name + "_count" + MetricsRegistry.labelText(labelNames, labels) + " \(entry.count)\n"
        }
    }
}

/// A gauge (or a counter kept elsewhere) read at scrape time.
final class CallbackGauge: MetricFamily {
    let name: String
    let help: String
    let labels: [String: String]
    let type: String
    let value: @Sendable () -> Double

    init(name: String, help: String, labels: [String: String], type: String = "gauge", value: @escaping @Sendable () -> Double) {
        self.name = name
        self.help = help
        self.labels = labels
        self.type = type
        self.value = value
    }

    func render(into out: inout String) {
        let keys = labels.keys.sorted()
        out += name + MetricsRegistry.labelText(keys, keys.map { labels[$0]! }) + " " + MetricsRegistry.number(value()) + "\n"
    }
}

/// Gatehouse's metrics, created once by `GatehouseServer` (reach it as `server.metrics`, or pass it to
/// the code that records). All methods are thread-safe and cheap (one mutex).
///
/// For the sign-in and token code:
/// ```swift
/// metrics.recordLogin(result: "success")          // or "invalid_credentials", "locked", "mfa_failed", "error"
/// metrics.recordTokenIssued(grantType: "authorization_code")   // or "refresh_token", "client_credentials"
/// metrics.recordRefreshTokenReuse()               // a rotated refresh token came back (family revoked)
/// metrics.setActiveSessions { try? sessions.countActive() ?? 0 }   // read at each scrape
/// let user = try metrics.timeDatabaseQuery { try store.users.find(...) }
/// ```
/// Keep `result` and `grantType` to fixed, documented words: they are label values.
public final class GatehouseMetrics: Sendable {
    public let registry = MetricsRegistry()
    /// `gatehouse_http_requests_total{route,method,status}` (public listener only).
    public let httpRequests: Counter
    /// `gatehouse_http_request_duration_seconds{route}`.
    public let httpRequestDuration: Histogram
    /// `gatehouse_logins_total{result}`.
    public let logins: Counter
    /// `gatehouse_tokens_issued_total{grant_type}`.
    public let tokensIssued: Counter
    /// `gatehouse_refresh_token_reuse_detected_total`.
    public let refreshTokenReuse: Counter
    /// `gatehouse_database_query_duration_seconds`.
    public let databaseQueryDuration: Histogram
    /// `gatehouse_maintenance_runs_total{result}`: `ok` or `error`.
    public let maintenanceRuns: Counter
    /// `gatehouse_maintenance_rows_purged_total{table}`.
    public let rowsPurged: Counter
    /// `gatehouse_maintenance_pages_released_total`: free pages given back to the file system.
    public let pagesReleased: Counter
    /// `gatehouse_mail_sent_total{template}`.
    public let mailSent: Counter
    /// `gatehouse_mail_failed_total{template}`: given up (a permanent refusal, or past email_max_age).
    public let mailFailed: Counter
    /// `gatehouse_mail_retries_total`: deliveries that failed and were scheduled again.
    public let mailRetries: Counter
    private let mailQueueDepth = ProviderBox()
    private let activeSessions = ProviderBox()
    private let storage = StorageGauges()

    /// Methods kept as their own label value; anything else is counted as `other`.
    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]

    public init(version: String, startTime: Date = Date()) {
        httpRequests = registry.counter("gatehouse_http_requests_total", help: "HTTP requests answered on the public listener.",
                                        labels: ["route", "method", "status"])
        httpRequestDuration = registry.histogram("gatehouse_http_request_duration_seconds",
                                                 help: "Time from a parsed request to its queued response, by route.", labels: ["route"])
        logins = registry.counter("gatehouse_logins_total", help: "Sign-in attempts by result.", labels: ["result"])
        tokensIssued = registry.counter("gatehouse_tokens_issued_total", help: "Tokens issued at the token endpoint by grant type.",
                                        labels: ["grant_type"])
        refreshTokenReuse = registry.counter("gatehouse_refresh_token_reuse_detected_total",
                                             help: "Rotated refresh tokens presented again (the token family is revoked).")
        databaseQueryDuration = registry.histogram("gatehouse_database_query_duration_seconds",
                                                   help: "SQLite query time (readiness pings and timed queries).")
        maintenanceRuns = registry.counter("gatehouse_maintenance_runs_total", help: "Background purge runs by result.", labels: ["result"])
        rowsPurged = registry.counter("gatehouse_maintenance_rows_purged_total", help: "Rows the background purge deleted, by table.",
                                      labels: ["table"])
        pagesReleased = registry.counter("gatehouse_maintenance_pages_released_total",
                                         help: "Free database pages given back to the file system (incremental vacuum).")
        registry.gauge("gatehouse_maintenance_last_run_seconds", help: "Wall time of the last background purge run.") { [storage] in
            storage.lastRun.withLock { $0.seconds }
        }
        registry.gauge("gatehouse_maintenance_longest_write_hold_seconds",
                       help: "Longest time one batch of the last purge run held the write lock.") { [storage] in
            storage.lastRun.withLock { $0.longestHold }
        }
        registry.gauge("gatehouse_database_file_bytes", help: "Size of the SQLite database file.") { [storage] in
            Double(storage.files.withLock { $0 }?().database ?? 0)
        }
        registry.gauge("gatehouse_database_wal_bytes", help: "Size of the SQLite write-ahead log (-wal file).") { [storage] in
            Double(storage.files.withLock { $0 }?().wal ?? 0)
        }
        mailSent = registry.counter("gatehouse_mail_sent_total", help: "Email messages delivered, by template.", labels: ["template"])
        mailFailed = registry.counter("gatehouse_mail_failed_total", help: "Email messages given up, by template.", labels: ["template"])
        mailRetries = registry.counter("gatehouse_mail_retries_total", help: "Email deliveries that failed and were scheduled again.")
        registry.gauge("gatehouse_mail_queue_depth", help: "Email messages queued and not yet sent or given up.") { [mailQueueDepth] in
            Double(mailQueueDepth.provider.withLock { $0 }?() ?? 0)
        }
        registry.gauge("gatehouse_active_sessions", help: "Browser sessions currently active.") { [activeSessions] in
            Double(activeSessions.provider.withLock { $0 }?() ?? 0)
        }
        registry.counter("gatehouse_password_hashing_cpu_seconds_total",
                         help: "CPU spent hashing and verifying passwords (Argon2id; scrypt and imported bcrypt until their upgrade).") { PasswordHashingCPU.seconds }
        registry.gauge("gatehouse_build_info", help: "Always 1; the version is a label.", labels: ["version": version]) { 1 }
        let start = startTime.timeIntervalSince1970.rounded(.down)
        registry.gauge("gatehouse_process_start_time_seconds", help: "Start time of the process since the Unix epoch in seconds.") { start }
    }

    public func recordLogin(result: String) { logins.increment(result) }
    public func recordTokenIssued(grantType: String) { tokensIssued.increment(grantType) }
    public func recordRefreshTokenReuse() { refreshTokenReuse.increment() }

    /// One background purge run: rows per table (table names are a fixed set), its wall time, the
    /// longest write-lock hold of its batches and the pages released after it.
    public func recordMaintenance(rows: [String: Int], seconds: Double, longestHold: Double, pagesReleased released: Int) {
        maintenanceRuns.increment("ok")
        for (table, count) in rows where count > 0 { rowsPurged.increment(table, by: Double(count)) }
        if released > 0 { pagesReleased.increment(by: Double(released)) }
        storage.lastRun.withLock { $0 = (seconds, longestHold) }
    }

    public func recordMaintenanceFailure() { maintenanceRuns.increment("error") }

    public func recordMailSent(template: String) { mailSent.increment(template) }
    public func recordMailFailed(template: String) { mailFailed.increment(template) }
    public func recordMailRetry() { mailRetries.increment() }

    /// Sets the callback read at each scrape for `gatehouse_mail_queue_depth` (one count on a reader).
    public func setMailQueueDepth(_ provider: @escaping @Sendable () -> Int) { mailQueueDepth.provider.withLock { $0 = provider } }

    /// Sets the callback read at each scrape for `gatehouse_database_file_bytes` and `_wal_bytes` (two stat calls).
    public func setDatabaseFiles(_ provider: @escaping @Sendable () -> (database: Int64, wal: Int64)) {
        storage.files.withLock { $0 = provider }
    }

    /// Sets the callback read at each scrape for `gatehouse_active_sessions`.
    public func setActiveSessions(_ provider: @escaping @Sendable () -> Int) { activeSessions.provider.withLock { $0 = provider } }

    /// Runs `body` and records its duration in `gatehouse_database_query_duration_seconds`.
    public func timeDatabaseQuery<T>(_ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - start
            databaseQueryDuration.observe(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        return try body()
    }

    /// The `HTTPServerConfiguration.onResponse` hook for the public listener.
    public func observeResponse(route: String, method: String, status: Int, duration: Double) {
        let methodLabel = Self.knownMethods.contains(method) ? method : "other"
        httpRequests.increment(route, methodLabel, String(status))
        httpRequestDuration.observe(duration, route)
    }
}

/// The last maintenance run and the database file sizes, read by the gauges at scrape time.
final class StorageGauges: Sendable {
    let lastRun = Mutex<(seconds: Double, longestHold: Double)>((0, 0))
    let files = Mutex<(@Sendable () -> (database: Int64, wal: Int64))?>(nil)
}

final class ProviderBox: Sendable {
    let provider = Mutex<(@Sendable () -> Int)?>(nil)
}
