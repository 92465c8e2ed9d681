import Foundation
import Storage
import Testing

/// Every store serves both backends, and both schemas move in step: a store or migration added
/// for SQLite alone fails here until its PostgreSQL side exists (issue #16).
@Suite struct BackendParityTests {
    static let sources = EmbeddedMigrationsTests.root.appendingPathComponent("Sources/Storage")

    /// SQLite-only stores (`init(store: Store)`) not ported to the `SQLStorage` seam yet. This list may only shrink.
    static let notYetPorted: Set<String> = [
        "AuditStore", "Purger", "SpaceReclaimer", "SQLiteAccountStore", "SQLiteGrantHolderReader", "SQLiteIdentityStore",
        "SQLiteLifecycleLookup", "SQLiteOneTimeCodeStore", "SQLiteRefreshTokenFamilyReader", "SQLiteSessionTransferStore",
    ]

    /// The types in Sources/Storage whose initializer takes SQLite's `Store` rather than `some SQLStorage`.
    static func sqliteOnlyTypes() throws -> Set<String> {
        var names: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: sources.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            // The type is the last declaration before each such initializer.
            for initializer in text.ranges(of: "init(store: Store)") {
                let declaration = try #require(text[..<initializer.lowerBound].matches(of: /(?:struct|class) (\w+)/).last, "\(file)")
                names.insert(String(declaration.1))
            }
        }
        return names
    }

    @Test func everyNewStoreServesBothBackends() throws {
        let sqliteOnly = try Self.sqliteOnlyTypes()
        let unexpected = sqliteOnly.subtracting(Self.notYetPorted)
        #expect(unexpected.isEmpty, "SQLite-only stores: \(unexpected.sorted()); build them on `some SQLStorage` and run them against PostgreSQL")
        let ported = Self.notYetPorted.subtracting(sqliteOnly)
        #expect(ported.isEmpty, "\(ported.sorted()) now serve both backends: remove them from notYetPorted")
    }

    @Test func postgresMigrationsMirrorSQLitesNumbersAndNames() {
        #expect(EmbeddedMigrations.postgresql.map(\.identifier) == EmbeddedMigrations.all.map(\.identifier),
                "add Migrations/postgresql/NNNN_name.sql for every Migrations/NNNN_name.sql (scripts/embed-migrations)")
    }
}
