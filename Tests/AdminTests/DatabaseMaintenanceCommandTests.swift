import Foundation
import Model
import SQLite
import Storage
import Testing
import TestSupport
@testable import Admin

/// `idp-admin db stats | purge | vacuum` through the in-process CLI on a real database.
@Suite struct DatabaseMaintenanceCommandTests {
    /// 40 expired login transactions, 5 of 8 audit events older than the retention, and one live session.
    private func seed(_ harness: AdminHarness) throws {
        let app = try harness.createApp()
        let userID = try harness.createUser("ada@example.com")
        let now = Int64(Date().timeIntervalSince1970)
        try harness.withStore { store in
            try store.database.write { connection in
                for index in 0..<40 {
                    _ = try connection.run(
                        "INSERT INTO login_transactions (id_hash, client_id, parameters, csrf_hash, created_at, expires_at) VALUES (?, ?, '{}', 'c', ?, ?)",
                        [.text("tx-\(index)"), .text(app.id), .integer(now - 1200), .integer(now - 600)])
                }
                for index in 0..<8 {
                    _ = try connection.run("INSERT INTO audit_events (time, event, actor, details) VALUES (?, 'seeded', 'system', '{}')",
                                           [.integer(index < 5 ? now - 40 * 86_400 : now)])
                }
            }
        }
        _ = try harness.seedHoldings(userID: userID, clientID: app.id)
    }

    private func table(_ stats: [String: Any], _ name: String) -> [String: Any]? {
        (stats["tables"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }

    @Test func statsCountsRowsAndWhatIsDue() throws {
        let harness = try AdminHarness("db-stats")
        try seed(harness)
        let stats = try harness.json(["db", "stats"])
        #expect(table(stats, "login_transactions")?["rows"] as? Int == 40 && table(stats, "login_transactions")?["due"] as? Int == 40)
        let auditRows = try #require(table(stats, "audit_events")?["rows"] as? Int)
        #expect(auditRows >= 8)  // plus the CLI's own events
        #expect(table(stats, "audit_events")?["due"] as? Int == 5)
        #expect(table(stats, "sessions")?["rows"] as? Int == 1 && table(stats, "sessions")?["due"] as? Int == 0)
        #expect(table(stats, "refresh_tokens")?["due"] as? Int == 0 && table(stats, "grants")?["due"] as? Int == 0)
        #expect(table(stats, "users")?["rows"] as? Int == 1 && table(stats, "users")?["due"] is NSNull)
        #expect(stats["auto_vacuum"] as? String == "incremental")
        #expect((stats["database_bytes"] as? Int ?? 0) > 0 && stats["wal_bytes"] is Int)
        #expect((stats["page_size"] as? Int ?? 0) > 0 && stats["free_pages"] is Int)

        let text = harness.run(["db", "stats"])
        #expect(text.status == 0)
        #expect(text.standardOutput.contains("TABLE") && text.standardOutput.contains("login_transactions"))
        #expect(text.standardOutput.contains("auto_vacuum=incremental"))
    }

    @Test func purgeDeletesWhatStatsCalledDueAndAuditsIt() throws {
        let harness = try AdminHarness("db-purge")
        try seed(harness)
        let purged = try harness.json(["db", "purge"])
        let rows = try #require(purged["purged"] as? [String: Int])
        #expect(rows["login_transactions"] == 40 && rows["audit_events"] == 5 && rows["sessions"] == 0)
        let stats = try harness.json(["db", "stats"])
        for entry in stats["tables"] as? [[String: Any]] ?? [] where !(entry["due"] is NSNull) {
            #expect(entry["due"] as? Int == 0, "\(entry)")
        }
        let event = try #require(try harness.auditEvents().last { $0.event == "db.purged" })
        #expect(event.actor == "ops" && event.details["login_transactions"] == "40")
        #expect(harness.run(["db", "purge"]).standardOutput.hasPrefix("nothing to purge"))
    }

    @Test func vacuumConvertsAnOlderFile() throws {
        let harness = try AdminHarness("db-vacuum")
        try seed(harness)
        try harness.withStore { store in
            try store.database.withWriter { connection in
                try connection.execute("PRAGMA auto_vacuum = NONE")
                try connection.execute("VACUUM")
            }
        }
        // Enough old audit events that purging them frees more pages than the reclaimer keeps.
        let old = Int64(Date().timeIntervalSince1970) - 40 * 86_400
        try harness.withStore { store in
            try store.database.write { connection in
                for _ in 0..<3000 {
                    _ = try connection.run("INSERT INTO audit_events (time, event, actor, details) VALUES (?, 'bulk', 'system', ?)",
                                           [.integer(old), .text(#"{"pad":""# + String(repeating: "p", count: 1000) + #""}"#)])
                }
            }
        }
        #expect(try harness.json(["db", "stats"])["auto_vacuum"] as? String == "none")
        #expect(harness.run(["db", "stats"]).standardOutput.contains("run `idp-admin db vacuum` once"))
        #expect(try harness.json(["db", "purge"])["needs_vacuum"] as? Bool == true)
        let result = try harness.json(["db", "vacuum"])
        #expect(result["auto_vacuum"] as? String == "incremental")
        #expect(try harness.json(["db", "stats"])["free_pages"] as? Int == 0)
        #expect(try harness.auditEvents().contains { $0.event == "db.vacuumed" })
        #expect(harness.run(["db", "check"]).status == 0)
    }

    @Test func theCommandsAreListedAndRefuseAMissingDatabase() throws {
        let harness = try AdminHarness("db-help", initialize: false)
        let help = harness.run(["help"]).standardOutput
        for command in ["db stats", "db purge", "db vacuum"] { #expect(help.contains(command), "\(command) missing from help") }
        #expect(harness.run(["help", "db", "stats"]).standardOutput.contains("Usage: idp-admin db stats [--json]"))
        for words in [["db", "stats"], ["db", "purge"], ["db", "vacuum"]] {
            let result = harness.run(words)
            #expect(result.status == 1 && result.standardError.contains("no database at"), "\(words)")
        }
        #expect(!FileManager.default.fileExists(atPath: harness.databasePath))
    }
}
