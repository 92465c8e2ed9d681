import Foundation
import Model
import SQLite
import Storage
import Synchronization
import Testing
import TestSupport
@testable import Admin

@Suite struct DatabaseCommandTests {
    let directory: TemporaryDirectory
    let environment: [String: String]
    var database: String { directory.file("idp.sqlite3") }

    init() throws {
        directory = try TemporaryDirectory("admin-db")
        environment = ["IDP_DATABASE": directory.file("idp.sqlite3"), "USER": "ops"]
    }

    private func run(_ words: [String]) -> AdminCLI.Result { AdminCLI.run(words, environment: environment, systemConfigPath: nil) }

    @Test func initCreatesTheDatabaseOnceAndMigrateFindsItUpToDate() throws {
        let refused = run(["db", "migrate"])
        #expect(refused.status == 1 && refused.standardError.contains("no database at"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: database))
        let first = run(["db", "init", "--json"])
        #expect(first.status == 0, "\(first.standardError)")
        let created = try JSONSerialization.jsonObject(with: Data(first.standardOutput.utf8)) as? [String: Any]
        #expect(created?["migrations_applied"] as? Int == EmbeddedMigrations.all.count)
        #expect(created?["database"] as? String == database)
        let again = run(["db", "init"])
        #expect(again.status == 1 && again.standardError.contains("already exists"))
        let second = run(["db", "migrate"])
        #expect(second.standardOutput.contains("up to date"))
    }

    @Test func statusListsEveryMigrationAsApplied() throws {
        #expect(run(["db", "init"]).status == 0)
        let status = run(["db", "status", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [[String: Any]])
        #expect(rows.count == EmbeddedMigrations.all.count)
        #expect(rows.allSatisfy { $0["applied"] as? Bool == true })
    }

    @Test func commandsOnAMissingDatabaseSayHowToCreateIt() {
        for words in [["db", "status"], ["db", "check"], ["db", "backup", directory.file("b.sqlite3")]] {
            let result = run(words)
            #expect(result.status == 1, "\(words)")
            #expect(result.standardError.contains("no database at"), "\(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test func checkPassesOnAHealthyDatabaseAndFailsOnAChangedMigration() throws {
        #expect(run(["db", "init"]).status == 0)
        #expect(run(["db", "check"]).status == 0)
        let db = try Database(path: database)
        try db.write { try $0.run("UPDATE schema_migrations SET checksum = 'tampered' WHERE version = 1") }
        db.close()
        let result = run(["db", "check"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("was changed after it was applied"))
    }

    @Test func backupUnderWriteLoadOpensAndChecksClean() throws {
        #expect(run(["db", "init"]).status == 0)
        let store = try Store(path: database)
        defer { store.close() }
        let audit = AuditStore(store: store)
        let stop = Mutex(false)
        let written = Mutex(0)
        let writer = Thread {
            while !stop.withLock({ $0 }) {
                try? audit.append(AuditEvent(time: Date(), event: "load.test", actor: "test"))
                written.withLock { $0 += 1 }
            }
        }
        writer.start()
        while written.withLock({ $0 }) < 50 { Thread.sleep(forTimeInterval: 0.01) }
        let destination = directory.file("backup.sqlite3")
        let result = run(["db", "backup", destination, "--json"])
        stop.withLock { $0 = true }
        #expect(result.status == 0, "\(result.standardError)")
        let copy = try Database(path: destination)
        defer { copy.close() }
        #expect(try copy.integrityCheck() == ["ok"])
        let rows = try copy.read { try $0.queryOne("SELECT count(*) AS n FROM audit_events WHERE event = 'load.test'")?.int("n") } ?? 0
        #expect(rows >= 50)
        // Refuses to overwrite.
        let again = run(["db", "backup", destination])
        #expect(again.status == 1)
        #expect(again.standardError.contains("already exists"))
    }
}
