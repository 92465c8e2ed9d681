import Foundation
import Testing
import SQLite
import Storage

/// Fails when Sources/Storage/EmbeddedMigrations.swift is stale: run scripts/embed-migrations.
@Suite struct EmbeddedMigrationsTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func migrationFiles() throws -> [String] {
        let directory = root.appendingPathComponent("Migrations").path
        guard FileManager.default.fileExists(atPath: directory) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: directory)
            // Broader than the script's own pattern, so a file it would refuse shows up here too.
            .filter { $0.range(of: #"^[0-9]{4}_.*\.sql$"#, options: .regularExpression) != nil }
            .sorted()
    }

    static func sha256sum(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return String(output.prefix { !$0.isWhitespace })
    }

    @Test func embeddedMigrationsMatchTheFiles() throws {
        let files = try Self.migrationFiles()
        let embedded = EmbeddedMigrations.all
        #expect(embedded.map(\.fileName) == files, "Migrations/ changed: run scripts/embed-migrations")
        for (file, migration) in zip(files, embedded) {
            let path = Self.root.appendingPathComponent("Migrations").appendingPathComponent(file).path
            let bytes = try #require(FileManager.default.contents(atPath: path))
            #expect(Array(migration.sql.utf8) == Array(bytes), "\(file) differs from the embedded SQL: run scripts/embed-migrations")
            #expect(migration.checksum == (try Self.sha256sum(path)), "\(file) checksum is stale: run scripts/embed-migrations")
        }
    }

    @Test func embeddedMigrationsAreAValidSequence() throws {
        #expect(EmbeddedMigrations.all.map(\.version) == (0..<EmbeddedMigrations.all.count).map { $0 + 1 })
        #expect(EmbeddedMigrations.all.allSatisfy { $0.checksum.count == 64 && $0.checksum == $0.checksum.lowercased() })
    }
}
