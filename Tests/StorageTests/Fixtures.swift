import Foundation
import SQLite
import Storage
import TestSupport

/// Fixture migrations, independent of the real Migrations/ being written in parallel.
enum Fixture {
    static let one = Migration(version: 1, name: "initial", sql: """
        CREATE TABLE clients (id TEXT PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);
        """, checksum: "c1")
    static let two = Migration(version: 2, name: "add_codes", sql: """
        CREATE TABLE codes (code TEXT PRIMARY KEY, client_id TEXT NOT NULL REFERENCES clients(id));
        """, checksum: "c2")
    static let three = Migration(version: 3, name: "add_index", sql: "CREATE INDEX codes_client ON codes (client_id);", checksum: "c3")

    static func database(_ dir: TemporaryDirectory) throws -> Database {
        try Database(path: dir.file("db.sqlite3"), readers: 2)
    }
}

extension Database {
    func scalar(_ sql: String) throws -> SQLValue? {
        try read { try $0.queryOne(sql)?[0] }
    }

    func tableNames() throws -> [String] {
        try read { try $0.query("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").map { try $0.string(0) } }
    }
}
