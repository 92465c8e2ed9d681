import Foundation
import Model
import Storage

/// `idp-admin audit tail`: the newest audit events, and with `--follow` the new ones as they come.
enum AuditCommands {
    static let all = [tail]

    /// How `--follow` prints, waits and stops. The default writes to standard output, polls every
    /// 500 ms and stops at SIGINT or SIGTERM; tests bind their own (`AuditCommands.$follower.withValue`).
    struct Follower: Sendable {
        var write: @Sendable (String) -> Void
        var shouldStop: @Sendable () -> Bool
        var pollInterval: TimeInterval = 0.5
        /// Stop after this many polls (tests); nil: until `shouldStop`.
        var maximumPolls: Int?
    }

    @TaskLocal static var follower: Follower?

    static let defaultLimit = 50

    static let tail = Command(
        ["audit", "tail"],
        summary: "Print the newest audit events, oldest first; --follow keeps printing new ones.",
        usage: "audit tail [--follow] [--user USER_ID|EMAIL] [--limit N] [--from ID --take N] [--json]",
        details: """
            Prints the newest --limit events (default 50), newest last: sign-ins and their failures, tokens, and
            every change made with idp-admin (the actor is the operator's OS user name). --user keeps only one
            user's events. --follow then keeps printing new events as they are written (checked every 500 ms)
            until interrupted (Ctrl-C or SIGTERM), like tail -f.
            --json prints an array of {"time", "event", "user_id", "client_id", "ip", "actor", "details"}
            (time in ISO 8601; absent values are null, "id" the event's number); with --follow, one such object
            per line (JSON Lines).
            Paging: --from ID --take N prints the N events after event ID, oldest first (--from 0 starts at the
            oldest); a full page ends with the command for the next one.
            """,
        valueFlags: ["--user", "--limit", "--from", "--take"],
        switchFlags: ["--follow"],
        run: { invocation in
            let arguments = invocation.arguments
            var limit = defaultLimit
            if let text = arguments.value("--limit") {
                guard let value = Int(text), (1...100_000).contains(value) else {
                    throw AdminError.usage("--limit must be a number from 1 to 100000, not \(text)")
                }
                limit = value
            }
            let store = try invocation.store()
            var userID = arguments.value("--user")
            if let key = userID, key.contains("@"),
               let user = try storageFailures({ () throws(StorageError) in try SQLiteUserStore(store: store).find(email: key) }) {
                userID = user.userID
            }
            let filter = userID
            let audit = AuditStore(store: store)
            if let fromText = arguments.value("--from") {
                guard let from = Int64(fromText), from >= 0 else { throw AdminError.usage("--from must be an event id (a number), not \(fromText)") }
                var take = defaultLimit
                if let text = arguments.value("--take") {
                    guard let value = Int(text), (1...100_000).contains(value) else {
                        throw AdminError.usage("--take must be a number from 1 to 100000, not \(text)")
                    }
                    take = value
                }
                let page = try storageFailures { () throws(StorageError) in try audit.events(after: from, userID: filter, limit: take) }
                var text = page.isEmpty ? "(no events)" : page.map(line).joined(separator: "\n")
                if page.count == take, let last = page.last?.id { text += "\n\nnext page: idp-admin audit tail --from \(last) --take \(take)" }
                return Output(json: page.map(object), text: text)
            }
            if arguments.value("--take") != nil { throw AdminError.usage("--take pages with --from; use --limit for the newest events") }
            let events = try storageFailures { () throws(StorageError) in try audit.tail(limit: limit, userID: filter) }
            let asJSON = arguments.has("--json")
            guard arguments.has("--follow") else {
                let text = events.isEmpty ? "(no events)" : events.map(line).joined(separator: "\n")
                return Output(json: events.map(object), text: text)
            }

            let signals = follower == nil ? StopSignals() : nil
            defer { signals?.restore() }
            let follow = follower ?? Follower(write: { text in FileHandle.standardOutput.write(Data(text.utf8)) },
                                              shouldStop: { signals?.stopped ?? true })
            func emit(_ batch: [AuditEvent]) {
                guard !batch.isEmpty else { return }
                follow.write(batch.map { asJSON ? compactJSON(object($0)) : line($0) }.joined(separator: "\n") + "\n")
            }
            emit(events)
            var lastID: Int64 = 0
            if let id = events.last?.id {
                lastID = id
            } else {
                lastID = try storageFailures { () throws(StorageError) in try audit.tail(limit: 1).last?.id } ?? 0
            }
            var polls = 0
            while !follow.shouldStop() {
                if let maximum = follow.maximumPolls, polls >= maximum { break }
                // Sleep in short steps so a signal ends the command promptly.
                let deadline = Date().addingTimeInterval(follow.pollInterval)
                while Date() < deadline && !follow.shouldStop() { Thread.sleep(forTimeInterval: min(0.05, follow.pollInterval)) }
                if follow.shouldStop() { break }
                polls += 1
                var batch: [AuditEvent]
                repeat {
                    let after = lastID
                    batch = try storageFailures { () throws(StorageError) in try audit.events(after: after, userID: filter, limit: 1000) }
                    emit(batch)
                    lastID = batch.last?.id ?? lastID
                } while batch.count == 1000
            }
            var output = Output(json: [] as [Any], text: "")
            output.streamed = true
            return output
        })

    /// The JSON shape of one event: exactly these eight keys (`id` is the paging cursor).
    static func object(_ event: AuditEvent) -> [String: Any] {
        ["id": event.id ?? NSNull(), "time": timestamp(event.time), "event": event.event, "user_id": event.userID ?? NSNull(),
         "client_id": event.clientID ?? NSNull(), "ip": event.ip ?? NSNull(), "actor": event.actor, "details": event.details]
    }

    /// One line for people: id, time, event, actor, then whatever else is known.
    static func line(_ event: AuditEvent) -> String {
        var parts = ["#\(event.id.map(String.init) ?? "-")", timestamp(event.time), event.event, "actor=\(event.actor)"]
        if let userID = event.userID { parts.append("user=\(userID)") }
        if let clientID = event.clientID { parts.append("client=\(clientID)") }
        if let ip = event.ip { parts.append("ip=\(ip)") }
        parts += event.details.keys.sorted().map { "\($0)=\(event.details[$0]!)" }
        return parts.joined(separator: "  ")
    }

    static func compactJSON(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// Catches SIGINT and SIGTERM while `audit tail --follow` runs, so it stops cleanly with status 0.
final class StopSignals: @unchecked Sendable {
    private let lock = NSLock()
    private var received = false
    private var sources: [DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.stop() }
            source.resume()
            sources.append(source)
        }
    }

    var stopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    private func stop() {
        lock.lock()
        received = true
        lock.unlock()
    }

    func restore() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
