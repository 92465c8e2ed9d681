import Foundation
import Model
import Storage
import Testing
import TestSupport

/// The real daemon runs maintenance at start (and logs it, and exports it); `idp-admin db stats`
/// (a subprocess) then finds nothing left due.
@Suite struct DaemonMaintenanceTests {
    /// A database in `directory/data` with 300 expired login transactions and 20 audit events
    /// older than a day, as a daemon that never purged would have left it.
    static func seed(_ directory: TemporaryDirectory) throws {
        let store = try Store(path: directory.file("data/idp.sqlite3"))
        defer { store.close() }
        try MaintenanceTaskTests.seedExpired(store, transactions: 300, auditEvents: 20, before: Date())
    }

    static func logEvents(_ daemon: Daemon, _ name: String) -> [[String: Any]] {
        daemon.standardError.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.filter { $0["event"] as? String == name }
    }

    static func waitFor(_ daemon: Daemon, _ name: String, timeout: TimeInterval = 10) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = logEvents(daemon, name).first { return line }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    @Test func theDaemonPurgesAtStartAndDbStatsSeesNothingDue() throws {
        let directory = try TemporaryDirectory("idp-maintenance")
        try Self.seed(directory)
        let before = try Self.stats(directory)
        #expect(Self.table(before, "login_transactions")?["due"] as? Int == 300)
        #expect(Self.table(before, "audit_events")?["due"] as? Int == 20)

        let daemon = try Daemon(environment: ["IDP_AUDIT_RETENTION": "1d", "IDP_ADMIN_LISTEN": "127.0.0.1:0"], directory: directory)
        defer { daemon.stop() }
        let line = try #require(Self.waitFor(daemon, "maintenance"), "no maintenance line: \(daemon.standardError)")
        #expect(line["purged_login_transactions"] as? Int == 300 && line["purged_audit_events"] as? Int == 20)
        #expect(line["level"] as? String == "info")

        let after = try Self.stats(directory)
        #expect(Self.table(after, "login_transactions")?["rows"] as? Int == 0)
        #expect(Self.table(after, "audit_events")?["due"] as? Int == 0)
        #expect(Self.table(after, "clients")?["rows"] as? Int == 1 && Self.table(after, "clients")?["due"] is NSNull)
        #expect(after["auto_vacuum"] as? String == "incremental")
        #expect((after["database_bytes"] as? Int ?? 0) > 0)

        let admin = try #require(Self.waitFor(daemon, "admin_listening")?["address"] as? String)
        let metrics = try Curl.get("http://\(admin)/metrics").text
        #expect(metrics.contains(#"gatehouse_maintenance_rows_purged_total{table="login_transactions"} 300"#))
        #expect(metrics.contains(#"gatehouse_maintenance_runs_total{result="ok"} 1"#))
        #expect(metrics.contains("gatehouse_database_file_bytes "))
        let ready = try Curl.get("http://\(admin)/readyz")
        #expect(ready.status == 200 && ready.text == #"{"status":"ok"}"#)
    }

    @Test func maintenanceIntervalZeroLeavesEverything() throws {
        let directory = try TemporaryDirectory("idp-maintenance-off")
        try Self.seed(directory)
        let daemon = try Daemon(environment: ["IDP_MAINTENANCE_INTERVAL": "0"], directory: directory)
        Thread.sleep(forTimeInterval: 1)
        daemon.stop()
        #expect(Self.logEvents(daemon, "maintenance").isEmpty)
        #expect(Self.table(try Self.stats(directory), "login_transactions")?["rows"] as? Int == 300)
    }

    /// `idp-admin db stats --json`, run as the operator would (with the daemon's audit_retention).
    static func stats(_ directory: TemporaryDirectory) throws -> [String: Any] {
        let result = try AdminProcess.run(["db", "stats", "--json"], environment: ["IDP_AUDIT_RETENTION": "1d"], directory: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    static func table(_ stats: [String: Any], _ name: String) -> [String: Any]? {
        (stats["tables"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }
}
