import Foundation
import Settings
import SQLite
import Storage

/// `idp-admin db stats | purge | vacuum`: what the database holds, and the daemon's maintenance by hand.
enum DatabaseMaintenanceCommands {
    static let all = [stats, purge, vacuum]

    static let stats = Command(
        ["db", "stats"],
        summary: "Rows per table and how many are due for purging now, file and WAL sizes, free pages.",
        usage: "db stats [--json]",
        details: """
            DUE counts what a maintenance run at this moment would delete (README "Maintenance and
            retention"); tables no rule cleans show "-". Counting scans every table on a reader:
            safe beside a running idp. auto_vacuum must be "incremental" for freed pages to be given
            back to the file system; an older file needs `idp-admin db vacuum` once.
            """,
        run: { invocation in
            let settings = try invocation.settings()
            let store = try existingStore(invocation, settings.database)
            let stats = try DatabaseCommands.mapErrors { try DatabaseStats.collect(store, policy: policy(settings), at: Date()) }
            var lines = [["TABLE", "ROWS", "DUE"]] + stats.tables.map { [$0.name, String($0.rows), $0.due.map(String.init) ?? "-"] }
            let widths = (0..<3).map { column in lines.map { $0[column].count }.max() ?? 0 }
            lines = lines.map { row in
                [row[0].padding(toLength: widths[0], withPad: " ", startingAt: 0),
                 String(repeating: " ", count: widths[1] - row[1].count) + row[1],
                 String(repeating: " ", count: widths[2] - row[2].count) + row[2]]
            }
            let text = lines.map { $0.joined(separator: "  ") }.joined(separator: "\n") + "\n\n"
                + "database  \(settings.database): \(bytes(stats.databaseBytes)), WAL \(bytes(stats.walBytes))\n"
                + "pages     \(stats.pageCount) of \(stats.pageSize) bytes, \(stats.freePages) free (\(bytes(Int64(stats.freePages * stats.pageSize))))\n"
                + "vacuum    auto_vacuum=\(stats.autoVacuum)"
                + (stats.autoVacuum == "incremental" ? "" : " (run `idp-admin db vacuum` once so idp can give freed space back)")
            let json: [String: Any] = [
                "database": settings.database, "database_bytes": stats.databaseBytes, "wal_bytes": stats.walBytes,
                "page_size": stats.pageSize, "page_count": stats.pageCount, "free_pages": stats.freePages,
                "auto_vacuum": stats.autoVacuum,
                "tables": stats.tables.map { ["name": $0.name, "rows": $0.rows, "due": $0.due.map { $0 as Any } ?? NSNull()] },
            ]
            return Output(json: json, text: text)
        })

    static let purge = Command(
        ["db", "purge"],
        summary: "Run the daemon's maintenance now: delete what no rule needs any more, then give the space back.",
        usage: "db purge [--json]",
        details: """
            What idp does at start and every maintenance_interval, in the same small batches, so it
            is safe beside a running idp. For maintenance_interval = 0 (run it from cron instead).
            """,
        run: { invocation in
            let settings = try invocation.settings()
            let store = try existingStore(invocation, settings.database)
            // As the daemon's maintenance runs: no batch's commit runs a checkpoint (Database+Checkpoints.swift).
            try DatabaseCommands.mapErrors { try store.sqlite?.startBackgroundCheckpoints() }
            let report = try DatabaseCommands.mapErrors { try Purger(store: store).purge(policy(settings), at: Date()) }
            let reclaimed = try DatabaseCommands.mapErrors { try SpaceReclaimer(store: store).reclaim() }
            // PASSIVE: a TRUNCATE checkpoint blocks every new writer until it has copied and synced the
            // whole WAL, tens of milliseconds after a large purge (measured by `scripts/bench holds`).
            try? store.sqlite?.database.checkpoint(truncate: false)
            let rows = Dictionary(uniqueKeysWithValues: PurgeTable.allCases.map { ($0.rawValue, report.deleted[$0] ?? 0) })
            if report.total > 0 {
                try invocation.audit("db.purged", details: rows.filter { $0.value > 0 }.mapValues(String.init))
            }
            let listed = PurgeTable.allCases.compactMap { table in report.deleted[table].map { "\(table.rawValue) \($0)" } }
            var text = report.total == 0 ? "nothing to purge" : "purged " + listed.joined(separator: ", ")
            text += "; \(reclaimed.releasedPages) free pages released"
            if reclaimed.needsFullVacuum { text += " (none can be until `idp-admin db vacuum` converts the file)" }
            return Output(json: ["purged": rows, "pages_released": reclaimed.releasedPages, "needs_vacuum": reclaimed.needsFullVacuum,
                                 "longest_write_hold_ms": milliseconds(max(report.longestHold, reclaimed.longestHold))],
                          text: text)
        })

    static let vacuum = Command(
        ["db", "vacuum"],
        summary: "Rebuild the database file (VACUUM) and switch it to incremental auto-vacuum.",
        usage: "db vacuum [--json]",
        details: """
            Databases created before Gatehouse used incremental auto-vacuum keep freed space inside
            the file; one VACUUM converts them, and from then on idp gives space back by itself.
            VACUUM holds the write lock for the whole rebuild: idp's writes wait up to 5 s and then
            fail with 503, so run it when traffic is low. It needs free disk space of about twice
            the database. On PostgreSQL it runs a plain VACUUM (ANALYZE), which takes no lock that
            stops idp's reads or writes (autovacuum does the same on its own schedule).
            """,
        run: { invocation in
            let settings = try invocation.settings()
            let store = try existingStore(invocation, settings.database)
            guard let store = store.sqlite else { return try postgresVacuum(invocation, store) }
            let before = store.fileSizes()
            try DatabaseCommands.mapErrors { try store.database.vacuum() }
            let after = store.fileSizes()
            let mode = try DatabaseCommands.mapErrors { try store.database.pageStats().autoVacuum.name }
            try invocation.audit("db.vacuumed", details: ["bytes_before": String(before.database), "bytes_after": String(after.database)])
            return Output(json: ["database": settings.database, "bytes_before": before.database, "bytes_after": after.database,
                                 "auto_vacuum": mode],
                          text: "\(settings.database): \(bytes(before.database)) -> \(bytes(after.database)), auto_vacuum=\(mode)")
        })

    /// `VACUUM (ANALYZE)` outside a transaction (VACUUM cannot run inside one), sizes from the server.
    private static func postgresVacuum(_ invocation: Invocation, _ store: any GatehouseStorage) throws -> Output {
        let size = { () throws -> Int64 in
            try DatabaseCommands.mapErrors { try DatabaseStats.serverBytes(store) }
        }
        let before = try size()
        try DatabaseCommands.mapErrors { try DatabaseStats.vacuumServer(store) }
        let after = try size()
        try invocation.audit("db.vacuumed", details: ["bytes_before": String(before), "bytes_after": String(after)])
        return Output(json: ["database": store.location, "bytes_before": before, "bytes_after": after, "auto_vacuum": "autovacuum"],
                      text: "\(store.location): \(bytes(before)) -> \(bytes(after)), VACUUM (ANALYZE) done")
    }

    /// The retention the daemon uses with these settings.
    static func policy(_ settings: Settings) -> RetentionPolicy {
        RetentionPolicy(auditRetention: Double(settings.auditRetention.components.seconds))
    }

    private static func existingStore(_ invocation: Invocation, _ path: String) throws -> any GatehouseStorage {
        _ = path
        return try invocation.store()
    }

    static func bytes(_ count: Int64) -> String {
        if count < 1024 { return "\(count) B" }
        if count < 1 << 20 { return String(format: "%.1f KiB", Double(count) / 1024) }
        return String(format: "%.1f MiB", Double(count) / 1_048_576)
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return (milliseconds * 100).rounded() / 100
    }
}
