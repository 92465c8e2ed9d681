import FoundationEssentials
import Model

/// Bounds the audit rows anonymous traffic can make. Each refused `/authorize` (and each failed or
/// throttled login for no known user) used to store a row: a flood from one address stored one per
/// request. Now, per interval (a minute), each (event, source address) stores at most `perSource`
/// rows and all sources together at most `perInterval`; the rest are counted, and when the
/// interval ends one summary row per busy source (`details.suppressed` = how many were not stored)
/// takes their place, for the `summariesPerEvent` busiest sources, plus one row for the others.
/// Events with a user id, or that are not refusals, are always stored: real accounts bound them.
struct AuditRateLimiter: Sendable {
    struct Limits: Sendable {
        var interval: TimeInterval = 60
        var perSource = 10
        var perInterval = 300
        /// Distinct (event, address) pairs counted per interval; beyond, only a total per event.
        var trackedSources = 10_000
        var summariesPerEvent = 20
    }

    /// Refusals an anonymous caller can cause at will.
    static let limitedSuffixes = [".refused", ".failed", ".throttled", ".cancelled"]

    static func isLimited(_ event: AuditEvent) -> Bool {
        event.userID == nil && limitedSuffixes.contains { event.event.hasSuffix($0) }
    }

    private struct Source: Hashable {
        let event: String
        let ip: String
    }

    let limits: Limits
    private var window: Int64?
    private var seen: [Source: (all: Int, stored: Int)] = [:]
    private var storedInWindow = 0
    /// Per event: events of sources that could not be tracked any more.
    private var untracked: [String: Int] = [:]
    private var summaries: [AuditEvent] = []

    init(limits: Limits = Limits()) { self.limits = limits }

    /// Whether to store `event`; one that is not stored is counted into its interval's summary.
    mutating func admit(_ event: AuditEvent) -> Bool {
        guard Self.isLimited(event) else { return true }
        advance(to: event.time)
        let source = Source(event: event.event, ip: event.ip ?? "-")
        guard let counts = seen[source] ?? (seen.count < limits.trackedSources ? (0, 0) : nil) else {
            untracked[event.event, default: 0] += 1
            return false
        }
        let store = counts.stored < limits.perSource && storedInWindow < limits.perInterval
        seen[source] = (counts.all + 1, counts.stored + (store ? 1 : 0))
        if store { storedInWindow += 1 }
        return store
    }

    /// Summary rows of the intervals that ended by `now` (with `closing`, of the current one too:
    /// the daemon is stopping). Each is taken once.
    mutating func takeSummaries(at now: Date, closing: Bool = false) -> [AuditEvent] {
        advance(to: now)
        if closing, let window { close(window) }
        defer { summaries = [] }
        return summaries
    }

    private mutating func advance(to time: Date) {
        let index = Int64((time.timeIntervalSince1970 / limits.interval).rounded(.down))
        guard let current = window else {
            window = index
            return
        }
        // An event stamped a little earlier (threads race for the lock) counts in the current interval.
        guard index > current else { return }
        close(current)
        window = index
    }

    private mutating func close(_ index: Int64) {
        let end = Date(timeIntervalSince1970: Double(index + 1) * limits.interval)
        let interval = String(Int(limits.interval))
        var byEvent: [String: [(ip: String, suppressed: Int)]] = [:]
        for (source, counts) in seen where counts.all > counts.stored {
            byEvent[source.event, default: []].append((source.ip, counts.all - counts.stored))
        }
        for event in Set(byEvent.keys).union(untracked.keys).sorted() {
            let sources = (byEvent[event] ?? []).sorted { $0.suppressed != $1.suppressed ? $0.suppressed > $1.suppressed : $0.ip < $1.ip }
            for source in sources.prefix(limits.summariesPerEvent) {
                summaries.append(AuditEvent(time: end, event: event, ip: source.ip == "-" ? nil : source.ip, actor: "system",
                                            details: ["suppressed": String(source.suppressed), "interval_seconds": interval]))
            }
            let rest = sources.dropFirst(limits.summariesPerEvent)
            let others = rest.reduce(0) { $0 + $1.suppressed } + (untracked[event] ?? 0)
            if others > 0 {
                summaries.append(AuditEvent(time: end, event: event, actor: "system",
                                            details: ["suppressed": String(others), "interval_seconds": interval,
                                                      "sources": untracked[event] == nil ? String(rest.count) : "\(rest.count)+"]))
            }
        }
        seen = [:]
        untracked = [:]
        storedInWindow = 0
        window = nil
    }
}
