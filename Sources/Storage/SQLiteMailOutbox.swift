import Crypto
import FoundationEssentials
import Model
import SQLite

/// A queued message as the sender sees it: the message with its values opened, and its history.
public struct ClaimedMail: Sendable, Equatable {
    public let id: Int64
    public let message: MailMessage
    /// Attempts so far, this one included.
    public let attempts: Int
    public let createdAt: Date
}

/// A queued message as `idp-admin email queue` shows it: never its values.
public struct OutboxEntry: Sendable, Equatable {
    public enum Status: String, Sendable { case pending, sending, sent, failed }
    public let id: Int64
    public let recipient: String
    public let template: String
    public let locale: String
    public let status: Status
    public let attempts: Int
    public let createdAt: Date
    /// When a pending message is tried next (or a claim expires).
    public let nextAttemptAt: Date?
    public let lastAttemptAt: Date?
    public let finishedAt: Date?
    public let lastError: String?
    /// Whether its sealed values are still stored (they go once it is sent or failed).
    public let holdsValues: Bool
}

/// The durable mail queue in SQLite (`mail_outbox`, migration 0007): `MailQueue` for the account
/// flows, and what the background sender needs (claim, mark sent, retry later, give up).
///
/// The values are sealed at rest with AES-256-GCM under a key derived from the key-encryption
/// key, bound to the row's recipient, template and creation time, so a database copy does not
/// reveal codes and a sealed box cannot be moved onto another recipient. They are deleted when
/// the message is sent or finally fails; the rest stays for `idp-admin email queue` until purged.
public struct SQLiteMailOutbox: MailQueue {
    let database: any SQLDatabase
    private let key: [UInt8]
    private static let version: UInt8 = 1

    /// - Parameter key: 32 bytes (the daemon derives it from the key-encryption key).
    public init(store: some SQLStorage, key: [UInt8]) {
        precondition(key.count == AESGCM.keySize, "the mail seal key must have 32 bytes")
        database = store.records.sql
        self.key = key
    }

    public func enqueue(_ message: MailMessage, at time: Date) throws(StorageError) {
        let created = Int64(time.timeIntervalSince1970.rounded(.down))
        let sealed = try seal(message.values, recipient: message.to, template: message.template.rawValue, createdAt: created)
        try mapStorageErrors {
            try database.write { connection in
                _ = try connection.run(
                    """
                    INSERT INTO mail_outbox (recipient, template, locale, sealed_values, status, created_at, next_attempt_at)
                    VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?5)
                    """,
                    [.text(message.to), .text(message.template.rawValue), .text(message.locale), .blob(sealed), .integer(created)])
            }
        }
    }

    /// Takes up to `limit` due messages (pending, or claimed by a sender whose claim ran out) and
    /// claims them until `now + lease`, counting the attempt, in one write transaction.
    /// A row whose values cannot be opened (another key-encryption key) is failed on the spot.
    public func claimDue(at now: Date, limit: Int, lease: TimeInterval) throws(StorageError) -> [ClaimedMail] {
        let time = Int64(now.timeIntervalSince1970.rounded(.down))
        return try mapStorageErrors {
            try database.write { connection in
                let rows = try connection.query(
                    """
                    SELECT id, recipient, template, locale, sealed_values, attempts, created_at FROM mail_outbox
                    WHERE status IN ('pending', 'sending') AND next_attempt_at <= ?1 ORDER BY next_attempt_at, id LIMIT ?2
                    """, [.integer(time), .integer(Int64(limit))])
                var claimed: [ClaimedMail] = []
                for row in rows {
                    let id = try row.int64("id")
                    let created = try row.int64("created_at")
                    let recipient = try row.string("recipient")
                    let templateName = try row.string("template")
                    guard let template = MailTemplate(rawValue: templateName), !(try row.isNull("sealed_values")),
                          let values = open(try row.blob("sealed_values"), recipient: recipient, template: templateName, createdAt: created) else {
                        try Self.finish(id, status: "failed", at: time, error: "the stored values cannot be opened (unknown template, or another key-encryption key)", on: connection)
                        continue
                    }
                    let attempts = try row.int("attempts") + 1
                    _ = try connection.run("UPDATE mail_outbox SET status = 'sending', attempts = ?2, last_attempt_at = ?3, next_attempt_at = ?4 WHERE id = ?1",
                                           [.integer(id), .integer(Int64(attempts)), .integer(time), .integer(time + Int64(lease.rounded(.up)))])
                    claimed.append(ClaimedMail(id: id, message: MailMessage(to: recipient, template: template, locale: try row.string("locale"), values: values),
                                               attempts: attempts, createdAt: Date(timeIntervalSince1970: TimeInterval(created))))
                }
                return claimed
            }
        }
    }

    /// Delivered: the values go, the row stays (until the purge) for `idp-admin email queue`.
    public func markSent(_ id: Int64, at now: Date) throws(StorageError) {
        try mapStorageErrors {
            try database.write { try Self.finish(id, status: "sent", at: Int64(now.timeIntervalSince1970.rounded(.down)), error: nil, on: $0) }
        }
    }

    /// Not delivered this time: back to pending, tried again at `next`.
    public func scheduleRetry(_ id: Int64, at next: Date, error: String) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                _ = try connection.run("UPDATE mail_outbox SET status = 'pending', next_attempt_at = ?2, last_error = ?3 WHERE id = ?1 AND status = 'sending'",
                                       [.integer(id), .integer(Int64(next.timeIntervalSince1970.rounded(.up))), .text(Self.capped(error))])
            }
        }
    }

    /// Given up (a permanent refusal, or too old): the values go, the error stays.
    public func markFailed(_ id: Int64, at now: Date, error: String) throws(StorageError) {
        try mapStorageErrors {
            try database.write { try Self.finish(id, status: "failed", at: Int64(now.timeIntervalSince1970.rounded(.down)), error: error, on: $0) }
        }
    }

    /// After a restart: this process's claims are void (it was the only sender), so they are due now.
    public func releaseClaims(at now: Date) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                _ = try connection.run("UPDATE mail_outbox SET status = 'pending', next_attempt_at = \(connection.dialect.least("next_attempt_at", "?1")) WHERE status = 'sending'",
                                       [.integer(Int64(now.timeIntervalSince1970.rounded(.down)))])
            }
        }
    }

    /// When the earliest pending message is due (nil when none waits), for the sender's sleep.
    public func nextDue() throws(StorageError) -> Date? {
        try mapStorageErrors {
            try database.read { connection in
                let row = try connection.queryOne("SELECT min(next_attempt_at) FROM mail_outbox WHERE status IN ('pending', 'sending')")
                guard let row, !(try row.isNull(0)) else { return nil }
                return Date(timeIntervalSince1970: TimeInterval(try row.int64(0)))
            }
        }
    }

    /// Messages not yet sent or given up (`gatehouse_mail_queue_depth`).
    public func depth() throws(StorageError) -> Int {
        try mapStorageErrors {
            try database.read { try $0.queryOne("SELECT count(*) FROM mail_outbox WHERE status IN ('pending', 'sending')")?.int(0) ?? 0 }
        }
    }

    /// The newest `limit` entries, newest first; `statuses` narrows them.
    public func list(limit: Int, statuses: Set<OutboxEntry.Status> = [.pending, .sending, .sent, .failed]) throws(StorageError) -> [OutboxEntry] {
        try Self.list(in: database, limit: limit, statuses: statuses)
    }

    /// The listing needs no key (nothing sealed is read): for `idp-admin email queue` and `doctor`.
    public static func list(in store: some SQLStorage, limit: Int,
                            statuses: Set<OutboxEntry.Status> = [.pending, .sending, .sent, .failed]) throws(StorageError) -> [OutboxEntry] {
        try list(in: store.records.sql, limit: limit, statuses: statuses)
    }

    private static func list(in database: any SQLDatabase, limit: Int, statuses: Set<OutboxEntry.Status>) throws(StorageError) -> [OutboxEntry] {
        let names = statuses.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ")
        return try mapStorageErrors {
            try database.read { connection in
                try connection.query("SELECT *, sealed_values IS NOT NULL AS holds FROM mail_outbox WHERE status IN (\(names)) ORDER BY id DESC LIMIT ?1",
                                     [.integer(Int64(limit))]).map { row in
                    func date(_ column: String) throws -> Date? {
                        try row.isNull(column) ? nil : Date(timeIntervalSince1970: TimeInterval(try row.int64(column)))
                    }
                    let status = OutboxEntry.Status(rawValue: try row.string("status")) ?? .failed
                    return OutboxEntry(id: try row.int64("id"), recipient: try row.string("recipient"), template: try row.string("template"),
                                       locale: try row.string("locale"), status: status, attempts: try row.int("attempts"),
                                       createdAt: try date("created_at") ?? Date(timeIntervalSince1970: 0),
                                       nextAttemptAt: status == .pending || status == .sending ? try date("next_attempt_at") : nil,
                                       lastAttemptAt: try date("last_attempt_at"), finishedAt: try date("finished_at"),
                                       lastError: try row.isNull("last_error") ? nil : try row.string("last_error"), holdsValues: try row.int("holds") == 1)
                }
            }
        }
    }

    private static func finish(_ id: Int64, status: String, at time: Int64, error: String?, on connection: any SQLConnection) throws {
        _ = try connection.run(
            "UPDATE mail_outbox SET status = ?2, sealed_values = NULL, finished_at = ?3, next_attempt_at = ?3, last_error = COALESCE(?4, last_error) WHERE id = ?1",
            [.integer(id), .text(status), .integer(time), error.map { .text(capped($0)) } ?? .null])
    }

    /// Errors come from mail servers: kept short.
    static func capped(_ error: String) -> String { String(error.prefix(500)) }

    private func seal(_ values: [String: String], recipient: String, template: String, createdAt: Int64) throws(StorageError) -> [UInt8] {
        do {
            return [Self.version] + (try AESGCM.seal(Array(StringMapJSON.encode(values).utf8), key: key,
                                                     associatedData: Self.associatedData(recipient, template, createdAt)))
        } catch {
            throw .internal("cannot seal mail values: \(error)")
        }
    }

    private func open(_ sealed: [UInt8], recipient: String, template: String, createdAt: Int64) -> [String: String]? {
        guard sealed.first == Self.version,
              let plain = try? AESGCM.open(sealed.dropFirst(), key: key, associatedData: Self.associatedData(recipient, template, createdAt)) else { return nil }
        return StringMapJSON.decode(String(decoding: plain, as: UTF8.self))
    }

    private static func associatedData(_ recipient: String, _ template: String, _ createdAt: Int64) -> [UInt8] {
        Array("gatehouse mail values v1 \(template) \(createdAt) \(recipient)".utf8)
    }
}

/// The one label the daemon and `idp-admin` derive the outbox's seal key under (from the
/// key-encryption key), so both open what the other sealed.
public enum MailOutboxKey {
    public static let purpose = "gatehouse mail outbox values v1"
}
