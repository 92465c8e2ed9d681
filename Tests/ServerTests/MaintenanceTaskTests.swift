import Foundation
import Logging
import Model
import Settings
import Storage
import Testing
import TestSupport
@testable import Server

/// The background maintenance: at start and every `maintenance_interval`, off the request path,
/// with one log line and metrics per run.
@Suite struct MaintenanceTaskTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A store holding 1,000 expired login transactions and 50 audit events older than a day.
    static func seededStore() throws -> (Store, TemporaryDirectory) {
        let (store, directory) = try makeTestStore()
        try seedExpired(store, transactions: 1000, auditEvents: 50, before: now)
        return (store, directory)
    }

    /// An application "app" with `transactions` login transactions and `auditEvents` audit events,
    /// all two days older than `time`, as a daemon that never purged would have left them.
    static func seedExpired(_ store: Store, transactions: Int, auditEvents: Int, before time: Date) throws {
        try SQLiteClientStore(store: store).create(Client(clientID: "app", name: "App", type: .native, createdAt: time))
        let old = Int64(time.timeIntervalSince1970) - 2 * 86_400
        try store.database.write { connection in
            for index in 0..<transactions {
                _ = try connection.run(
                    "INSERT INTO login_transactions (id_hash, client_id, parameters, csrf_hash, created_at, expires_at) VALUES (?, 'app', '{}', 'c', ?, ?)",
                    [.text("tx-\(index)"), .integer(old), .integer(old + 600)])
            }
            for _ in 0..<auditEvents {
                _ = try connection.run("INSERT INTO audit_events (time, event, actor, details) VALUES (?, 'old', 'system', '{}')", [.integer(old)])
            }
        }
    }

    static func settings(interval: Duration = .seconds(60), auditRetention: Duration = .seconds(86_400)) -> Settings {
        var settings = Settings()
        settings.maintenanceInterval = interval
        settings.auditRetention = auditRetention
        return settings
    }

    static func count(_ store: Store, _ table: String) throws -> Int {
        try store.database.read { try $0.queryOne("SELECT count(*) FROM \(table)")?.int(0) ?? 0 }
    }

    @Test func aRunPurgesLogsOneLineAndCountsMetrics() throws {
        let (store, directory) = try Self.seededStore()
        defer { store.close() }
        let sink = LogSink.memory()
        let metrics = GatehouseMetrics(version: "test")
        let task = MaintenanceTask(store: store, settings: Self.settings(), throttleWindow: 12 * 3600,
                                   logger: Logger(sink: sink), metrics: metrics, clock: FixedClock(Self.now))
        let outcome = try #require(task.runOnce())
        #expect(outcome.purge.deleted[.loginTransactions] == 1000 && outcome.purge.deleted[.auditEvents] == 50)
        #expect(try Self.count(store, "login_transactions") == 0 && Self.count(store, "audit_events") == 0)

        let lines = sink.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let line = try #require(lines.first { $0["event"] as? String == "maintenance" })
        #expect(line["purged"] as? Int == 1050)
        #expect(line["purged_login_transactions"] as? Int == 1000 && line["purged_audit_events"] as? Int == 50)
        #expect(line["purged_sessions"] as? Int == 0)
        // At most 200 rows a batch: 5 for the transactions and 1 for the events, more when a batch
        // reaches its 2 ms first (a loaded machine).
        #expect(line["duration_ms"] is Double && line["longest_hold_ms"] is Double && (line["write_batches"] as? Int ?? 0) >= 6)
        #expect(line["database_bytes"] is Int && line["wal_bytes"] is Int)

        #expect(metrics.rowsPurged.value("login_transactions") == 1000 && metrics.rowsPurged.value("audit_events") == 50)
        #expect(metrics.maintenanceRuns.value("ok") == 1)
        let rendered = metrics.registry.render()
        #expect(rendered.contains("gatehouse_maintenance_longest_write_hold_seconds "))
        #expect(rendered.contains(#"gatehouse_maintenance_rows_purged_total{table="login_transactions"} 1000"#))
        withExtendedLifetime(directory) {}
    }

    @Test func startRunsAtOnceAndStopIsPrompt() throws {
        let (store, directory) = try Self.seededStore()
        defer { store.close() }
        let task = MaintenanceTask(store: store, settings: Self.settings(interval: .seconds(3600)), throttleWindow: 0,
                                   logger: Logger(sink: .memory()), metrics: nil, clock: FixedClock(Self.now))
        task.start()
        let deadline = Date().addingTimeInterval(10)
        while try Self.count(store, "login_transactions") > 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(try Self.count(store, "login_transactions") == 0)
        // Asleep for an hour, yet stop returns at once.
        let stopping = ContinuousClock.now
        task.stop()
        #expect(ContinuousClock.now - stopping < .seconds(1))
        withExtendedLifetime(directory) {}
    }

    @Test func zeroIntervalTurnsItOff() throws {
        let (store, directory) = try Self.seededStore()
        defer { store.close() }
        let task = MaintenanceTask(store: store, settings: Self.settings(interval: .zero), throttleWindow: 0,
                                   logger: Logger(sink: .memory()), metrics: nil, clock: FixedClock(Self.now))
        task.start()
        Thread.sleep(forTimeInterval: 0.3)
        task.stop()
        #expect(try Self.count(store, "login_transactions") == 1000)
        withExtendedLifetime(directory) {}
    }

    @Test func theNewSettingsParseAndKeepTheirDefaults() throws {
        let defaults = try SettingsLoader.load(configPath: nil, environment: [:]).settings
        #expect(defaults.maintenanceInterval == .seconds(60) && defaults.auditRetention == .seconds(30 * 86_400))
        let set = try SettingsLoader.load(configPath: nil, environment: ["IDP_MAINTENANCE_INTERVAL": "0", "IDP_AUDIT_RETENTION": "90d"]).settings
        #expect(set.maintenanceInterval == .zero && set.auditRetention == .seconds(90 * 86_400))
        // One minute is the shortest retention (the soak bench uses minutes to reach its steady state).
        #expect(try SettingsLoader.load(configPath: nil, environment: ["IDP_AUDIT_RETENTION": "1m"]).settings.auditRetention == .seconds(60))
        #expect(throws: ConfigurationError.self) { try SettingsLoader.load(configPath: nil, environment: ["IDP_AUDIT_RETENTION": "59s"]) }
        #expect(throws: ConfigurationError.self) { try SettingsLoader.load(configPath: nil, environment: ["IDP_AUDIT_RETENTION": "3651d"]) }
        #expect(EffectiveSettings.describe(set)["audit_retention"] == "7776000s")
    }
}
