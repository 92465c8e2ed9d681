import Foundation
import Model
import Storage
import Testing
import TestSupport

/// What an anonymous caller controls (a client id echoed from /authorize, a reason quoting input)
/// is stored capped, so one request cannot store kilobytes.
@Suite struct AuditCapTests {
    @Test(arguments: TestBackend.available) func longValuesAreCutAtACharacterBoundary(_ backend: TestBackend) throws {
        let (store, directory) = try makeTestStorage(backend)
        let audit = AuditStore(store: store)
        let clientID = String(repeating: "é", count: 2000)  // 4,000 bytes
        try audit.append(AuditEvent(time: Date(), event: "authorize.refused", clientID: clientID, ip: "192.0.2.1",
                                    actor: "system", details: ["reason": String(repeating: "x", count: 5000), "short": "kept"]))
        let stored = try #require(try audit.tail(limit: 1).first)
        let storedClient = try #require(stored.clientID)
        #expect(storedClient.utf8.count <= AuditStore.maximumIDBytes)
        #expect(storedClient.hasPrefix("éé") && storedClient.hasSuffix("…"))
        let reason = try #require(stored.details["reason"])
        #expect(reason.utf8.count <= AuditStore.maximumValueBytes && reason.hasSuffix("…"))
        #expect(stored.details["short"] == "kept")
        #expect(stored.ip == "192.0.2.1")

        var many: [String: String] = [:]
        for index in 0..<30 { many["k\(String(format: "%02d", index))"] = "v" }
        try audit.append(AuditEvent(time: Date(), event: "many", actor: "system", details: many))
        #expect(try audit.tail(limit: 1).first?.details.count == AuditStore.maximumDetails)
        withExtendedLifetime(directory) {}
    }

    @Test(arguments: TestBackend.available) func shortValuesAreStoredAsGiven(_ backend: TestBackend) throws {
        let (store, directory) = try makeTestStorage(backend)
        let audit = AuditStore(store: store)
        let clientID = String(repeating: "a", count: AuditStore.maximumIDBytes)
        try audit.append(AuditEvent(time: Date(), event: "token.issued", clientID: clientID, actor: "system", details: ["grant_type": "refresh_token"]))
        let stored = try #require(try audit.tail(limit: 1).first)
        #expect(stored.clientID == clientID)
        #expect(stored.details == ["grant_type": "refresh_token"])
        withExtendedLifetime(directory) {}
    }
}
