import Foundation
import Model
import Storage
import Testing
import TestSupport

/// Audit details are written as JSON text by a hand-written encoder (sorted keys, strict escaping)
/// and appended in short transactions; they must read back exactly.
@Suite("Audit details")
struct AuditDetailsTests {
    @Test(arguments: [
        [:],
        ["grant_type": "refresh_token"],
        ["b": "2", "a": "1", "ü": "ß"],
        ["quote": "say \"hi\"", "slash": "a/b\\c", "controls": "line\nbreak\ttab\r\u{1}\u{1F}"],
        ["emoji": "🔑", "empty": ""],
    ] as [[String: String]], TestBackend.available)
    func detailsRoundTrip(_ details: [String: String], _ backend: TestBackend) throws {
        let (store, directory) = try makeTestStorage(backend)
        let audit = AuditStore(store: store)
        try audit.append(AuditEvent(time: Date(timeIntervalSince1970: 1_800_000_000), event: "test", userID: "u1", clientID: nil,
                                    ip: "192.0.2.1", actor: "system", details: details))
        #expect(try audit.tail(limit: 1).first?.details == details)
        withExtendedLifetime(directory) {}
    }

    @Test(arguments: TestBackend.available) func keysAreSortedAndSlashesKeptInTheStoredText(_ backend: TestBackend) throws {
        let (store, directory) = try makeTestStorage(backend)
        try AuditStore(store: store).append(AuditEvent(time: Date(), event: "test", userID: nil, clientID: nil, ip: nil,
                                                        actor: "system", details: ["z": "1", "a": "https://x/y"]))
        let text: String = try store.records.sql.read { try $0.queryOne("SELECT details FROM audit_events")!.get(0) }
        #expect(text == #"{"a":"https://x/y","z":"1"}"#)
        withExtendedLifetime(directory) {}
    }

    /// A batch larger than one transaction's chunk is written whole and in order.
    @Test(arguments: TestBackend.available) func largeBatchesAreWrittenInChunksInOrder(_ backend: TestBackend) throws {
        let (store, directory) = try makeTestStorage(backend)
        let audit = AuditStore(store: store)
        let events = (0..<300).map { index in
            AuditEvent(time: Date(timeIntervalSince1970: 1_800_000_000), event: "e\(index)", userID: nil, clientID: nil, ip: nil,
                       actor: "system", details: [:])
        }
        try audit.append(events, chunk: 128)
        #expect(try audit.tail(limit: 1000).map(\.event) == events.map(\.event))
        withExtendedLifetime(directory) {}
    }
}
