import FoundationEssentials
import Model
import SQLite

/// The append-only audit log.
public struct AuditStore: Sendable {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func append(_ event: AuditEvent) throws(StorageError) {
        try append([event])
    }

    /// Appends events in transactions of at most `chunk` events (the daemon batches them off the
    /// request path). The details are encoded before the write lock is taken, and the lock is
    /// released between chunks, so a burst of events never holds up token requests for long.
    public func append(_ events: [AuditEvent], chunk: Int = 128) throws(StorageError) {
        guard !events.isEmpty else { return }
        let rows: [[SQLValue]] = events.map { event in
            [.integer(Int64(event.time.timeIntervalSince1970)), .text(Self.capped(event.event, Self.maximumNameBytes)),
             SQLValue(optional: event.userID.map { Self.capped($0, Self.maximumIDBytes) }),
             SQLValue(optional: event.clientID.map { Self.capped($0, Self.maximumIDBytes) }),
             SQLValue(optional: event.ip.map { Self.capped($0, Self.maximumNameBytes) }), .text(Self.capped(event.actor, Self.maximumNameBytes)),
             .text(StringMapJSON.encode(Self.capped(event.details)))]
        }
        let step = max(1, chunk)
        try mapStorageErrors {
            for start in stride(from: 0, to: rows.count, by: step) {
                try database.write { connection in
                    for row in rows[start..<min(start + step, rows.count)] {
                        _ = try connection.run(
                            "INSERT INTO audit_events (time, event, user_id, client_id, ip, actor, details) VALUES (?, ?, ?, ?, ?, ?, ?)",
                            row)
                    }
                }
            }
        }
    }

    /// Ids as stored: a client id is echoed from the request (`/authorize?client_id=…`), so an
    /// anonymous caller decides its length; 128 bytes holds every id Gatehouse issues.
    public static let maximumIDBytes = 128
    /// Event names, actors, addresses and detail keys.
    public static let maximumNameBytes = 64
    /// Each detail value (a reason may quote request input), and at most `maximumDetails` of them.
    public static let maximumValueBytes = 256
    public static let maximumDetails = 16

    /// `text` cut to at most `bytes` UTF-8 bytes at a character boundary, ending in "…" when cut.
    static func capped(_ text: String, _ bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var kept = ""
        var used = 3  // the ellipsis
        for character in text {
            let size = character.utf8.count
            guard used + size <= bytes else { break }
            kept.append(character)
            used += size
        }
        return kept + "…"
    }

    /// Details with keys and values capped, the first `maximumDetails` keys (in key order) kept.
    static func capped(_ details: [String: String]) -> [String: String] {
        let oversized = details.count > maximumDetails
            || details.contains { $0.key.utf8.count > maximumNameBytes || $0.value.utf8.count > maximumValueBytes }
        guard oversized else { return details }
        var result: [String: String] = [:]
        for (key, value) in details.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).prefix(maximumDetails) {
            result[capped(key, maximumNameBytes)] = capped(value, maximumValueBytes)
        }
        return result
    }

    /// The newest `limit` events, oldest first.
    public func tail(limit: Int, userID: String? = nil) throws(StorageError) -> [AuditEvent] {
        try mapStorageErrors {
            try database.read { connection in
                // Two texts rather than `?1 IS NULL OR user_id = ?1`, which SQLite cannot answer from the index.
                let rows = if let userID {
                    try connection.query(
                        "SELECT * FROM (SELECT * FROM audit_events WHERE user_id = ?1 ORDER BY id DESC LIMIT ?2) AS newest ORDER BY id",
                        [.text(userID), .integer(Int64(limit))])
                } else {
                    // Newest first from the end of the primary key, turned around here: no sort.
                    try connection.query("SELECT * FROM audit_events ORDER BY id DESC LIMIT ?1", [.integer(Int64(limit))]).reversed().map { $0 }
                }
                return try rows.map(Self.event)
            }
        }
    }

    /// Events with an id above `id`, oldest first, at most `limit` (for `audit tail --follow`).
    public func events(after id: Int64, userID: String? = nil, limit: Int = 1000) throws(StorageError) -> [AuditEvent] {
        try mapStorageErrors {
            try database.read { connection in
                let rows = if let userID {
                    try connection.query("SELECT * FROM audit_events WHERE user_id = ?2 AND id > ?1 ORDER BY id LIMIT ?3",
                                         [.integer(id), .text(userID), .integer(Int64(limit))])
                } else {
                    try connection.query("SELECT * FROM audit_events WHERE id > ?1 ORDER BY id LIMIT ?2", [.integer(id), .integer(Int64(limit))])
                }
                return try rows.map(Self.event)
            }
        }
    }

    private static func event(_ row: Row) throws -> AuditEvent {
        let detailsText = try row.string("details")
        let details = StringMapJSON.decode(detailsText) ?? [:]
        return AuditEvent(id: try row.int64("id"), time: Date(timeIntervalSince1970: TimeInterval(try row.int64("time"))),
                          event: try row.string("event"), userID: try Self.optional(row, "user_id"),
                          clientID: try Self.optional(row, "client_id"), ip: try Self.optional(row, "ip"),
                          actor: try row.string("actor"), details: details)
    }

    private static func optional(_ row: Row, _ column: String) throws -> String? {
        try row.isNull(column) ? nil : try row.string(column)
    }
}

extension SQLValue {
    /// `.text` for a value, `.null` for nil.
    init(optional text: String?) { self = text.map { .text($0) } ?? .null }
}
