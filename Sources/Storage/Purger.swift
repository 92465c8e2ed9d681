import FoundationEssentials
import Glibc
import Model
import SQLite

/// What one purge run deleted and what it cost the writer.
public struct PurgeReport: Sendable, Equatable {
    /// Rows deleted per table (tables with none are absent).
    public internal(set) var deleted: [PurgeTable: Int] = [:]
    /// Write transactions used; each deletes at most `Purger.batchSize` rows (one more for a family's grant).
    public internal(set) var writeBatches = 0
    /// The longest time one batch held the write lock, from taking it to after its commit.
    public internal(set) var longestHold: Duration = .zero
    public internal(set) var totalHold: Duration = .zero
    /// Wall time of the run, pauses and reads included.
    public internal(set) var duration: Duration = .zero
    /// `shouldContinue` said stop before the run was done.
    public internal(set) var interrupted = false

    public init() {}

    public var total: Int { deleted.values.reduce(0, +) }

    mutating func record(_ table: PurgeTable, _ rows: Int, held: Duration) {
        if rows > 0 { deleted[table, default: 0] += rows }
        writeBatches += 1
        totalHold += held
        longestHold = max(longestHold, held)
    }
}

/// Deletes what `RetentionPolicy` says no rule needs any more (the rules are in `PurgeRules.swift`).
///
/// Off the request path and in small steps: due rows are found on a reader (which never blocks
/// the writer in WAL mode), then deleted by primary key, at most `batchSize` rows per write
/// transaction, each row's condition checked again under the write lock, with a `pause` between
/// transactions so request writers queued on the lock go first. The pages each batch's deletes
/// will change are read on a reader first (`ColdPages`), so no cold read happens under the lock. A run interrupted or failed
/// half-way leaves a consistent database; the next run picks up what is left.
public struct Purger: Sendable {
    let database: any SQLDatabase
    /// Rows deleted per write transaction; no statement deletes more. Measured on 20,000 expired
    /// login transactions beside a concurrent writer: 200 rows hold the lock about 1.3 ms per batch
    /// (longest ~5 ms), 500 rows about 3.5 ms (longest ~11 ms), for 50,000 and 65,000 rows/s.
    public var batchSize = 200
    /// Rows a keyset scan reads per query (on a reader).
    public var window = 2000
    /// Sleep between write transactions.
    public var pause: Duration = .milliseconds(2)
    /// A write transaction stops taking rows once it has held the lock this long (and commits what
    /// it did): on a large database a row's delete can cost far more than the average (cold pages,
    /// foreign-key checks), and the lock must never be held for more than a few milliseconds.
    public var batchTime: Duration = .milliseconds(2)

    public init(store: some SQLStorage) { database = store.records.sql }

    /// One run over every rule at `now`. `shouldContinue` is asked before each step (the daemon's
    /// shutdown says no); the run then ends early with `interrupted` set.
    public func purge(_ policy: RetentionPolicy, at now: Date,
                      shouldContinue: () -> Bool = { true }) throws(StorageError) -> PurgeReport {
        let started = ContinuousClock.now
        var report = PurgeReport()
        try mapStorageErrors {
            let (before, after) = PurgeRule.rules(policy, at: now, dialect: database.dialect)
            for rule in before where !report.interrupted { try run(rule, &report, shouldContinue) }
            if !report.interrupted { try purgeFamilies(FamilyRule.bindings(policy, at: now), &report, shouldContinue) }
            for rule in after where !report.interrupted { try run(rule, &report, shouldContinue) }
        }
        report.duration = ContinuousClock.now - started
        return report
    }

    /// How many rows each table has that a run at `now` would delete (full scans on a reader, for `idp-admin db stats`).
    public func dueCounts(_ policy: RetentionPolicy, at now: Date) throws(StorageError) -> [PurgeTable: Int] {
        try mapStorageErrors {
            try database.read { connection in
                func count(_ sql: String, _ bindings: [SQLValue]) throws -> Int {
                    try connection.queryOne(sql, sql.parameters([Self.unread, Self.unread] + bindings))?.int(0) ?? 0
                }
                var counts: [PurgeTable: Int] = [:]
                let (before, after) = PurgeRule.rules(policy, at: now, dialect: database.dialect)
                for rule in before + after { counts[rule.table, default: 0] += try count(rule.countDue, rule.bindings) }
                let family = FamilyRule.bindings(policy, at: now)
                counts[.grants] = try count(FamilyRule.countGrants(database.dialect), family)
                counts[.refreshTokens] = try count(FamilyRule.countTokens(database.dialect), family)
                return counts
            }
        }
    }

    // MARK: - Single-table rules

    private func run(_ rule: PurgeRule, _ report: inout PurgeReport, _ shouldContinue: () -> Bool) throws {
        switch rule.scan {
        case .expiryIndex:
            while true {
                guard shouldContinue() else { return report.interrupted = true }
                let keys = try database.read { connection in
                    try connection.query(rule.candidates, rule.candidates.parameters([rule.start, .integer(Int64(batchSize))] + rule.bindings))
                        .compactMap { $0[0] }
                }
                guard !keys.isEmpty else { return }
                let deleted = try delete(keys[...], rule, &report)
                // Fewer than asked for: none left. Fewer deleted than found: the rest changed
                // meanwhile and would be found again; leave them to the next run.
                if keys.count < batchSize || deleted < keys.count { return }
            }
        case .keyset(let cursor), .oldestFirst(let cursor):
            var pending: [SQLValue] = []
            let oldestFirst = if case .oldestFirst = rule.scan { true } else { false }
            let finished = try scan(cursor: cursor, start: rule.start, candidates: rule.candidates, bindings: rule.bindings,
                                    stopAtCleanWindow: oldestFirst, shouldContinue) { keys in
                pending += keys
                while pending.count >= batchSize {
                    _ = try delete(pending.prefix(batchSize), rule, &report)
                    pending.removeFirst(batchSize)
                }
            }
            if !finished { report.interrupted = true }
            if !pending.isEmpty && finished { _ = try delete(pending[...], rule, &report) }
        }
    }

    /// Visits the table in key order, `window` keys per read, handing each window's due keys to
    /// `found`. Returns false when `shouldContinue` stopped it.
    private func scan(cursor cursorSQL: String, start: SQLValue, candidates: String, bindings: [SQLValue], stopAtCleanWindow: Bool,
                      _ shouldContinue: () -> Bool, found: ([SQLValue]) throws -> Void) throws -> Bool {
        var cursor = start
        while true {
            guard shouldContinue() else { return false }
            let (end, keys) = try database.read { connection -> (SQLValue?, [SQLValue]) in
                guard let end = try connection.queryOne(cursorSQL, [cursor, .integer(Int64(window))])?[0], end != .null else {
                    return (nil, [])
                }
                let keys = try connection.query(candidates, candidates.parameters([cursor, end] + bindings)).compactMap { $0[0] }
                return (end, keys)
            }
            guard let end else { return true }
            if !keys.isEmpty { try found(keys) }
            if stopAtCleanWindow && keys.isEmpty { return true }
            cursor = end
        }
    }

    /// Deletes `keys` (at most one batch), in as many write transactions as `batchTime` needs;
    /// returns the rows deleted. SQLite: one statement per key (each a B-tree seek on the writer,
    /// no round trip), until the transaction has held the lock `batchTime`. PostgreSQL: one
    /// statement for the batch (`PurgeRule.deleteMany`), since a statement per key is a network
    /// round trip per key and 200 of them would keep the transaction open for tens of milliseconds.
    private func delete(_ keys: ArraySlice<SQLValue>, _ rule: PurgeRule, _ report: inout PurgeReport) throws -> Int {
        try ColdPages.warm(rule.warm, keys, in: database)
        let count = rule.delete.highestParameter
        var next = keys.startIndex
        var total = 0
        while next < keys.endIndex {
            let (deleted, held) = try database.timedWrite { connection in
                if connection.dialect == .postgresql {
                    let values = Array(([Self.unread, Self.unread] + rule.bindings).prefix(count)) + keys[next...]
                    let deleted = try connection.run(rule.deleteMany(keys.endIndex - next, after: count), values)
                    next = keys.endIndex
                    return deleted
                }
                let started = ContinuousClock.now
                var deleted = 0
                repeat {
                    deleted += try connection.run(rule.delete, Array(([keys[next], Self.unread] + rule.bindings).prefix(count)))
                    next += 1
                } while next < keys.endIndex && ContinuousClock.now - started < batchTime
                return deleted
            }
            report.record(rule.table, deleted, held: held)
            total += deleted
            rest()
        }
        return total
    }

    // MARK: - Token families

    private func purgeFamilies(_ bindings: [SQLValue], _ report: inout PurgeReport, _ shouldContinue: () -> Bool) throws {
        var pending: [SQLValue] = []
        let finished = try scan(cursor: FamilyRule.window, start: .text(""), candidates: FamilyRule.candidates(database.dialect), bindings: bindings,
                                stopAtCleanWindow: false, shouldContinue) { grants in
            pending += grants
            // A family may hold many tokens: collect a batch's worth of families, then delete them
            // over as many transactions as their rows need.
            if pending.count >= batchSize {
                try deleteFamilies(pending, bindings, &report, shouldContinue)
                pending = []
            }
        }
        if !finished { report.interrupted = true }
        if !pending.isEmpty && !report.interrupted { try deleteFamilies(pending, bindings, &report, shouldContinue) }
    }

    /// Deletes each family still due, oldest tokens first and the grant last, at most `batchSize`
    /// rows per transaction; a family larger than that spans several.
    private func deleteFamilies(_ grants: [SQLValue], _ bindings: [SQLValue], _ report: inout PurgeReport,
                                _ shouldContinue: () -> Bool) throws {
        let stillDue = FamilyRule.stillDue(database.dialect)
        let check = stillDue.highestParameter
        try ColdPages.warm(ColdPages.grant(database.dialect), grants, in: database)
        var next = 0
        while next < grants.count {
            guard shouldContinue() else { return report.interrupted = true }
            var tokens = 0
            var families = 0
            let (_, held) = try database.timedWrite { connection in
                let started = ContinuousClock.now
                var budget = batchSize
                var worked = false
                while budget > 0, next < grants.count, !worked || ContinuousClock.now - started < batchTime {
                    worked = true
                    let grant = grants[next]
                    guard try connection.queryOne(stillDue, Array(([grant, Self.unread] + bindings).prefix(check))) != nil else {
                        next += 1
                        continue
                    }
                    let removed = try connection.run(FamilyRule.deleteTokens, [grant, .integer(Int64(budget))])
                    tokens += removed
                    budget -= removed
                    if removed == 0 {
                        if let deleted = try connection.queryOne(FamilyRule.deleteGrant, [grant]) {
                            families += 1
                            tokens += try deleted.int("family_rows")
                        }
                        budget -= 1
                        next += 1
                    }
                }
            }
            report.record(.refreshTokens, tokens, held: held)
            if families > 0 { report.deleted[.grants, default: 0] += families }
            rest()
        }
    }

    /// Fills a parameter slot the statement does not read. Typed, not NULL: PostgreSQL refuses a
    /// parameter whose type it can neither infer from the statement nor is told.
    static let unread: SQLValue = .integer(0)

    /// Lets request writers waiting on the lock take it before the next batch.
    private func rest() { Self.sleep(pause) }

    static func sleep(_ duration: Duration) {
        guard duration > .zero else { return }
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }
}
