import Foundation
import Logging
import Model
import Storage
import Testing
import TestSupport
@testable import Server

/// Audit events are batched off the request path but never lost at a clean shutdown.
@Suite struct AuditRecorderTests {
    @Test func eventsAreWrittenInBatchesAndStopWritesWhatIsPending() throws {
        let directory = try TemporaryDirectory("audit")
        let store = try Store(path: directory.file("idp.sqlite3"))
        defer { store.close() }
        let audit = AuditStore(store: store)
        let recorder = AuditRecorder(store: audit, logger: Logger(sink: .memory()))
        for index in 0..<3 {
            recorder.record(AuditEvent(time: Date(), event: "test.\(index)", actor: "system"))
        }
        #expect(try audit.tail(limit: 10).isEmpty)  // Not yet: batched.
        recorder.flush()
        #expect(try audit.tail(limit: 10).map(\.event) == ["test.0", "test.1", "test.2"])
        recorder.record(AuditEvent(time: Date(), event: "test.last", actor: "system"))
        recorder.stop()
        #expect(try audit.tail(limit: 10).last?.event == "test.last")
    }

    @Test func theBackgroundFlusherWritesWithinAFractionOfASecond() throws {
        let directory = try TemporaryDirectory("audit")
        let store = try Store(path: directory.file("idp.sqlite3"))
        defer { store.close() }
        let audit = AuditStore(store: store)
        let recorder = AuditRecorder(store: audit, logger: Logger(sink: .memory()))
        recorder.start(every: 0.05)
        defer { recorder.stop() }
        recorder.record(AuditEvent(time: Date(), event: "test.background", actor: "system"))
        let deadline = Date().addingTimeInterval(5)
        while try audit.tail(limit: 1).isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(try audit.tail(limit: 1).first?.event == "test.background")
    }
}
