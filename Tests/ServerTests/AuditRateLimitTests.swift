import Foundation
import Logging
import Model
import Storage
import Testing
import TestSupport
@testable import Server

/// Anonymous refusals are stored at most N per minute per (event, address), then summarised.
@Suite struct AuditRateLimitTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)  // a minute boundary

    static func refused(_ ip: String?, at offset: TimeInterval = 0, event: String = "authorize.refused") -> AuditEvent {
        AuditEvent(time: start + offset, event: event, clientID: "client-\(Int(offset))", ip: ip, actor: "system",
                   details: ["reason": "unknown client_id"])
    }

    @Test func oneSourceStoresAtMostItsShareThenASummary() {
        var limiter = AuditRateLimiter()
        let stored = (0..<500).filter { limiter.admit(Self.refused("198.51.100.7", at: Double($0) / 10)) }.count
        #expect(stored == 10)
        #expect(limiter.takeSummaries(at: Self.start + 59).isEmpty)  // the minute is not over
        let summaries = limiter.takeSummaries(at: Self.start + 60)
        #expect(summaries.count == 1)
        let summary = summaries[0]
        #expect(summary.event == "authorize.refused" && summary.ip == "198.51.100.7" && summary.actor == "system")
        #expect(summary.details == ["suppressed": "490", "interval_seconds": "60"])
        #expect(summary.time == Self.start + 60)
        #expect(limiter.takeSummaries(at: Self.start + 120).isEmpty)  // taken once
        // A new minute: the source has its share again.
        let admitted = limiter.admit(Self.refused("198.51.100.7", at: 61))
        #expect(admitted)
    }

    @Test func sourcesAndEventsAreCountedApart() {
        var limiter = AuditRateLimiter()
        for index in 0..<15 {
            _ = limiter.admit(Self.refused("192.0.2.1", at: Double(index)))
            _ = limiter.admit(Self.refused("192.0.2.2", at: Double(index)))
            _ = limiter.admit(Self.refused("192.0.2.1", at: Double(index), event: "login.failed"))
        }
        let summaries = limiter.takeSummaries(at: Self.start + 60)
        let found = Set(summaries.map { "\($0.event) \($0.ip ?? "-") \($0.details["suppressed"] ?? "")" })
        #expect(found == ["authorize.refused 192.0.2.1 5", "authorize.refused 192.0.2.2 5", "login.failed 192.0.2.1 5"])
    }

    /// Many sources: all together store at most `perInterval`; the busiest get summaries, the rest one row.
    @Test func aDistributedFloodIsBoundedToo() {
        var limits = AuditRateLimiter.Limits()
        limits.perInterval = 50
        limits.summariesPerEvent = 3
        limits.trackedSources = 100
        var limiter = AuditRateLimiter(limits: limits)
        var stored = 0
        for source in 0..<200 {
            for request in 0..<(source < 3 ? 30 : 2) where limiter.admit(Self.refused("10.0.\(source / 256).\(source % 256)", at: Double(request))) {
                stored += 1
            }
        }
        #expect(stored == 50)
        let summaries = limiter.takeSummaries(at: Self.start + 60)
        #expect(summaries.count == 4)
        #expect(summaries.prefix(3).map(\.ip) == ["10.0.0.0", "10.0.0.1", "10.0.0.2"])
        let total = summaries.compactMap { Int($0.details["suppressed"] ?? "") }.reduce(0, +)
        #expect(total + stored == 3 * 30 + 197 * 2)
        #expect(summaries.last?.ip == nil && summaries.last?.details["sources"] == "87+")
    }

    @Test func eventsOfKnownUsersAndNonRefusalsAreNeverLimited() {
        var limiter = AuditRateLimiter()
        for index in 0..<100 {
            let known = limiter.admit(AuditEvent(time: Self.start + Double(index), event: "login.failed", userID: "auth0|1",
                                                 ip: "192.0.2.9", actor: "user"))
            let issued = limiter.admit(AuditEvent(time: Self.start + Double(index), event: "token.issued", clientID: "app",
                                                  ip: "192.0.2.9", actor: "system"))
            #expect(known && issued)
        }
        #expect(limiter.takeSummaries(at: Self.start + 600).isEmpty)
    }

    /// Through the recorder and the store: a flood of 2,000 refusals becomes 10 rows and a summary;
    /// the pending summary is written at shutdown.
    @Test func theRecorderStoresTheLimitedEventsAndTheSummary() throws {
        let directory = try TemporaryDirectory("audit-limit")
        let store = try Store(path: directory.file("idp.sqlite3"))
        defer { store.close() }
        let audit = AuditStore(store: store)
        let clock = MutableClock(Self.start)
        let recorder = AuditRecorder(store: audit, logger: Logger(sink: .memory()), clock: clock)
        for index in 0..<2000 { recorder.record(Self.refused("203.0.113.5", at: Double(index) / 100)) }
        recorder.flush()
        #expect(try audit.tail(limit: 100).count == 10)
        recorder.stop()  // closes the current minute
        let rows = try audit.tail(limit: 100)
        #expect(rows.count == 11)
        #expect(rows.last?.details["suppressed"] == "1990")
    }
}
