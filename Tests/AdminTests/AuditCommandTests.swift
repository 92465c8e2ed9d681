import Foundation
import Model
import Storage
import Testing
import TestSupport
@testable import Admin

/// `idp-admin audit tail [--follow] [--user ID] [--limit N] [--json]`.
@Suite struct AuditCommandTests {
    let admin: AdminHarness

    init() throws { admin = try AdminHarness("admin-audit") }

    private func append(_ count: Int, event: String = "test.event", userID: String? = nil) throws {
        try admin.withStore { store in
            let audit = AuditStore(store: store)
            for index in 0..<count {
                try audit.append(AuditEvent(time: Date(), event: event, userID: userID, clientID: "client-1", ip: "192.0.2.7",
                                            actor: "user", details: ["n": String(index)]))
            }
        }
    }

    @Test func jsonHasExactlyTheDocumentedShapeNewestLast() throws {
        let userID = try admin.createUser("ada@example.com")
        let app = try admin.createApp()
        try append(1, event: "login.succeeded", userID: userID)
        let events = try admin.jsonArray(["audit", "tail"])
        #expect(events.map { $0["event"] as? String } == ["users.created", "apps.created", "login.succeeded"])
        for event in events {
            #expect(Set(event.keys) == ["id", "time", "event", "user_id", "client_id", "ip", "actor", "details"])
            let time = try #require(event["time"] as? String)
            #expect(try Date(time, strategy: .iso8601) <= Date())
            #expect(event["details"] is [String: Any])
        }
        #expect(events[0]["user_id"] as? String == userID && events[0]["client_id"] is NSNull && events[0]["actor"] as? String == "ops")
        #expect(events[1]["client_id"] as? String == app.id && events[1]["user_id"] is NSNull && events[1]["ip"] is NSNull)
        #expect((events[1]["details"] as? [String: String]) == ["name": "App", "type": "regular"])
        #expect(events[2]["ip"] as? String == "192.0.2.7" && events[2]["actor"] as? String == "user")
    }

    @Test func limitDefaultsTo50AndKeepsTheNewest() throws {
        try append(60)
        let all = try admin.jsonArray(["audit", "tail"])
        #expect(all.count == 50)
        #expect((all.last?["details"] as? [String: String])?["n"] == "59")
        #expect((all.first?["details"] as? [String: String])?["n"] == "10")
        let three = try admin.jsonArray(["audit", "tail", "--limit", "3"])
        #expect(three.compactMap { ($0["details"] as? [String: String])?["n"] } == ["57", "58", "59"])
    }

    @Test func userFiltersByIDOrEmail() throws {
        let userID = try admin.createUser("ada@example.com")
        _ = try admin.createUser("bob@example.com")
        try append(2, event: "login.failed", userID: userID)
        for key in [userID, "ADA@example.com"] {
            let events = try admin.jsonArray(["audit", "tail", "--user", key])
            #expect(events.map { $0["event"] as? String } == ["users.created", "login.failed", "login.failed"], "\(key)")
            #expect(events.allSatisfy { $0["user_id"] as? String == userID })
        }
        #expect(try admin.jsonArray(["audit", "tail", "--user", "auth0|nobody"]).isEmpty)
    }

    @Test func textOutputIsOneLinePerEvent() throws {
        #expect(admin.run(["audit", "tail"]).standardOutput == "(no events)\n")
        let userID = try admin.createUser("ada@example.com")
        let text = admin.run(["audit", "tail"]).standardOutput
        #expect(text.hasSuffix("users.created  actor=ops  user=\(userID)  email=ada@example.com\n"))
    }

    @Test(arguments: [["--limit", "0"], ["--limit", "many"], ["--user"], ["--folow"]])
    func badFlagsExit2(flags: [String]) {
        #expect(admin.run(["audit", "tail"] + flags).status == 2)
    }

    /// In-process: prints the tail, then events written after it, as JSON Lines.
    @Test func followPrintsNewEventsAsTheyCome() throws {
        try append(2)
        let printed = Printed()
        let calls = Counter()
        let path = admin.databasePath
        let follower = AuditCommands.Follower(
            write: { printed.append($0) },
            shouldStop: {
                // Another writer appends while the follower waits.
                if calls.increment() == 1 {
                    let store = try? Store(path: path)
                    try? store.map { try AuditStore(store: $0).append(AuditEvent(time: Date(), event: "late.event", actor: "system")) }
                    store?.close()
                }
                return false
            },
            pollInterval: 0.01, maximumPolls: 3)
        let result = AuditCommands.$follower.withValue(follower) { admin.run(["audit", "tail", "--follow", "--json", "--limit", "1"]) }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
        let lines = printed.text.split(separator: "\n")
        #expect(lines.count == 2)
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.map { $0["event"] as? String } == ["test.event", "late.event"])
        #expect(objects.allSatisfy { $0.count == 8 })
    }

    /// Through the binary: `--follow` runs until SIGTERM or SIGINT, printing events written meanwhile, and exits 0.
    @Test(arguments: [SIGTERM, SIGINT])
    func followRunsUntilSignalled(signal: Int32) throws {
        try append(1, event: "before.follow")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Daemon.binary("idp-admin"))
        process.arguments = ["audit", "tail", "--follow"]
        process.environment = ["PATH": "/usr/bin:/bin", "IDP_DATABASE": admin.databasePath]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        let printed = Printed()
        output.fileHandleForReading.readabilityHandler = { printed.append(String(decoding: $0.availableData, as: UTF8.self)) }
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        #expect(printed.wait(for: "before.follow", timeout: 10))
        try append(1, event: "during.follow")
        #expect(printed.wait(for: "during.follow", timeout: 10), "\(printed.text)")
        #expect(process.isRunning)
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!process.isRunning, "still running after the signal")
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        output.fileHandleForReading.readabilityHandler = nil
    }
}

/// Text collected from another thread.
final class Printed: @unchecked Sendable {
    private let lock = NSLock()
    private var collected = ""

    func append(_ text: String) {
        lock.lock()
        collected += text
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }

    func wait(for needle: String, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if text.contains(needle) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return text.contains(needle)
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

@Suite struct CommandSuggestionTests {
    @Test(arguments: [
        (["apps", "rotate"], "apps rotate-secret"),
        (["users", "blok", "x"], "users block"),
        (["users", "set-pasword"], "users set-password"),
        (["audit", "tial"], "audit tail"),
        (["aduit", "tail"], "audit tail"),
        (["config", "chek"], "config check"),
        (["apps", "del"], "apps delete"),
    ])
    func aMistypedCommandSuggestsTheNearestInItsGroup(words: [String], suggestion: String) {
        let result = AdminCLI.run(words, environment: [:])
        #expect(result.status == 2)
        #expect(result.standardError.contains("(did you mean \"\(suggestion)\"?)"), "\(result.standardError)")
    }

    @Test func aMistypedFlagSuggestsTheNearest() {
        let result = AdminCLI.run(["audit", "tail", "--limt", "3"], environment: [:])
        #expect(result.status == 2)
        #expect(result.standardError.contains("unknown flag --limt (did you mean --limit?)"))
    }
}
