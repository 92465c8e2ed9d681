import Foundation
import Storage
import Testing

/// Every store serves both backends, and both schemas move in step: a store or migration added
/// for SQLite alone fails here until its PostgreSQL side exists (issue #16).
@Suite struct BackendParityTests {
    static let sources = EmbeddedMigrationsTests.root.appendingPathComponent("Sources/Storage")

    /// SQLite-only stores not ported to the `SQLStorage` seam yet. This list may only shrink (it is empty: keep it so).
    static let notYetPorted: Set<String> = []

    /// The files that are SQLite's own on purpose: `Store` itself (opening the file, WAL checkpoints,
    /// file sizes, the write-health readiness check) and the seams that name it for the other backend.
    static let sqliteMaintenance: Set<String> = [
        "Store.swift", "Store+Readiness.swift", "StoreOpenError.swift", "SQLStorage.swift", "GatehouseStorage.swift", "StorageBackend.swift",
    ]

    /// The types in Sources/Storage with a parameter or property typed SQLite's `Store` or `Database`
    /// (any initializer or method, whatever else it takes) rather than `some SQLStorage` / `any SQLDatabase`.
    static func sqliteOnlyTypes() throws -> Set<String> {
        var names: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: sources.path) where file.hasSuffix(".swift") && !sqliteMaintenance.contains(file) {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            // The type is the last declaration before each such use.
            for use in text.matches(of: /\w+: (?:Store|Database)\b/) {
                let declaration = try #require(text[..<use.range.lowerBound].matches(of: /(?:struct|class|enum|extension) (\w+)/).last, "\(file)")
                names.insert(String(declaration.1))
            }
        }
        return names
    }

    /// The check itself: a store written against SQLite's types is found, one on the seam is not.
    @Test func theScanFindsAStoreOnSQLitesTypes() throws {
        let sample = "struct Fine { init(store: some SQLStorage) {} }\nstruct Old { init(store: Store, key: [UInt8]) {} }"
        #expect(sample.matches(of: /\w+: (?:Store|Database)\b/).count == 1)
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
