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

    /// A flush swaps the pending list out while other threads go on recording: every event is
    /// written once, whichever flush takes it, and each thread's events keep their order.
    @Test func eventsRecordedDuringFlushesAreWrittenOnce() throws {
        let directory = try TemporaryDirectory("audit")
        let store = try Store(path: directory.file("idp.sqlite3"))
        defer { store.close() }
        let audit = AuditStore(store: store)
        let recorder = AuditRecorder(store: audit, logger: Logger(sink: .memory()))
        let writers = 4
        let each = 500
        DispatchQueue.concurrentPerform(iterations: writers + 1) { index in
            guard index < writers else {
                for _ in 0..<40 { recorder.flush() }
                return
            }
            for number in 0..<each { recorder.record(AuditEvent(time: Date(), event: "test.\(index).\(number)", actor: "system")) }
        }
        recorder.stop()
        let written = try audit.tail(limit: writers * each + 10).map(\.event)
        #expect(written.count == writers * each && Set(written).count == writers * each)
        for index in 0..<writers {
            let mine = written.filter { $0.hasPrefix("test.\(index).") }
            #expect(mine == (0..<each).map { "test.\(index).\($0)" })
        }
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
