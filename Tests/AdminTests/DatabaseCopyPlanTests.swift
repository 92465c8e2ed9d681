import PostgreSQL
import Testing
@testable import Admin

/// The plan `db copy` makes from two schemas, with no database: every mismatch is refused by name.
@Suite struct DatabaseCopyPlanTests {
    typealias Shape = DatabaseCopyPlan.TableShape
    typealias Key = DatabaseCopyPlan.ForeignKey

    static func shape(_ name: String, _ columns: [(String, String)], key: [String] = ["id"]) -> Shape {
        Shape(name: name, columns: columns.map { (name: $0.0, type: $0.1) }, keyColumns: key)
    }

    @Test(arguments: [
        // (SQLite tables, PostgreSQL tables, expected error)
        ([shape("a", [("id", "TEXT")]), shape("b", [("id", "TEXT")])], [shape("a", [("id", "text")])],
         DatabaseCopyError.schemasDiffer(onlySQLite: ["b"], onlyPostgres: [])),
        ([shape("a", [("id", "TEXT")])], [shape("a", [("id", "text")]), shape("later", [("id", "text")])],
         DatabaseCopyError.schemasDiffer(onlySQLite: [], onlyPostgres: ["later"])),
        ([shape("a", [("id", "TEXT"), ("old", "TEXT")])], [shape("a", [("id", "text"), ("new", "text")])],
         DatabaseCopyError.columnsDiffer(table: "a", onlySQLite: ["old"], onlyPostgres: ["new"])),
        ([shape("a", [("id", "TEXT"), ("at", "TEXT")])], [shape("a", [("id", "text"), ("at", "timestamp with time zone")])],
         DatabaseCopyError.unsupportedType(table: "a", column: "at", type: "timestamp with time zone")),
        ([shape("sessions", [("id", "TEXT")])], [shape("sessions", [("id", "text")])],
         DatabaseCopyError.expiryColumnMissing(table: "sessions", column: "expires_at")),
    ])
    func refusesSchemasThatDoNotMatch(sqlite: [Shape], postgres: [Shape], expected: DatabaseCopyError) {
        #expect(throws: expected) { try DatabaseCopyPlan.make(sqlite: sqlite, postgres: postgres, foreignKeys: []) }
    }

    @Test func schemaMigrationsIsLeftToEachMigrator() throws {
        let plan = try DatabaseCopyPlan.make(sqlite: [Self.shape("schema_migrations", [("version", "INTEGER")]), Self.shape("a", [("id", "TEXT")])],
                                             postgres: [Self.shape("a", [("id", "text")]), Self.shape("schema_migrations", [("version", "bigint")])],
                                             foreignKeys: [])
        #expect(plan.tables.map(\.name) == ["a"])
    }

    @Test func parentsComeFirstAndTiesKeepCreationOrder() throws {
        let names = ["child", "other", "parent"]
        let plan = try DatabaseCopyPlan.make(
            sqlite: names.map { Self.shape($0, [("id", "TEXT"), ("parent_id", "TEXT")]) },
            postgres: names.reversed().map { Self.shape($0, [("id", "text"), ("parent_id", "text")]) },
            foreignKeys: [Key(child: "child", column: "parent_id", parent: "parent", parentColumn: "id", nullable: false)])
        #expect(plan.tables.map(\.name) == ["other", "parent", "child"])
        #expect(plan.tables.allSatisfy { $0.deferredColumns.isEmpty })
    }

    @Test func aCycleIsBrokenAtItsNullableColumn() throws {
        // sessions.parent_grant_id → grants, grants.session_id → sessions (both nullable), grants.client_id → clients.
        let plan = try DatabaseCopyPlan.make(
            sqlite: [Self.shape("clients", [("client_id", "TEXT")]),
                     Self.shape("sessions", [("session_id", "TEXT"), ("expires_at", "INTEGER"), ("parent_grant_id", "TEXT")]),
                     Self.shape("grants", [("grant_id", "TEXT"), ("client_id", "TEXT"), ("session_id", "TEXT")])],
            postgres: [Self.shape("clients", [("client_id", "text")]),
                       Self.shape("sessions", [("session_id", "text"), ("expires_at", "bigint"), ("parent_grant_id", "text")]),
                       Self.shape("grants", [("grant_id", "text"), ("client_id", "text"), ("session_id", "text")])],
            foreignKeys: [Key(child: "sessions", column: "parent_grant_id", parent: "grants", parentColumn: "grant_id", nullable: true),
                          Key(child: "grants", column: "session_id", parent: "sessions", parentColumn: "session_id", nullable: true),
                          Key(child: "grants", column: "client_id", parent: "clients", parentColumn: "client_id", nullable: false)])
        #expect(plan.tables.map(\.name) == ["clients", "sessions", "grants"])
        #expect(plan.tables[1].deferredColumns == ["parent_grant_id"])
        // An expired session is still copied while a grant names it.
        #expect(plan.tables[1].keep == "(sessions.expires_at > ?1 OR EXISTS (SELECT 1 FROM grants WHERE grants.session_id = sessions.session_id))")
    }

    @Test func aCycleOfRequiredColumnsIsRefused() {
        #expect(throws: DatabaseCopyError.foreignKeyCycle(["a", "b"])) {
            try DatabaseCopyPlan.make(
                sqlite: [Self.shape("a", [("id", "TEXT"), ("b_id", "TEXT")]), Self.shape("b", [("id", "TEXT"), ("a_id", "TEXT")])],
                postgres: [Self.shape("a", [("id", "text"), ("b_id", "text")]), Self.shape("b", [("id", "text"), ("a_id", "text")])],
                foreignKeys: [Key(child: "a", column: "b_id", parent: "b", parentColumn: "id", nullable: false),
                              Key(child: "b", column: "a_id", parent: "a", parentColumn: "id", nullable: false)])
        }
    }

    @Test(arguments: [
        (DatabaseCopyPlan.ColumnType.integer, SQLValue.integer(7), SQLValue.integer(7)),
        (.integer, .real(3.0), .integer(3)),
        (.boolean, .integer(1), .text("true")),
        (.boolean, .integer(0), .text("false")),
        (.real, .integer(2), .real(2.0)),
        (.text, .integer(42), .text("42")),
        (.text, .blob(Array("ok".utf8)), .text("ok")),
        (.bytea, .text("ab"), .blob([0x61, 0x62])),
        (.bytea, .blob([0, 255]), .blob([0, 255])),
        (.text, .null, .null),
    ])
    func convertsSQLiteValuesToTheTwinsType(type: DatabaseCopyPlan.ColumnType, value: SQLValue, expected: SQLValue) throws {
        #expect(try DatabaseCopier.convert(value, to: type, table: "t", column: "c") == expected)
    }

    @Test(arguments: [
        (DatabaseCopyPlan.ColumnType.integer, SQLValue.text("12")),
        (.integer, .real(1.5)),
        (.boolean, .text("yes")),
        (.text, .blob([0xff, 0xfe])),
        (.real, .blob([1])),
    ])
    func refusesValuesOfTheWrongKindNamingTheColumn(type: DatabaseCopyPlan.ColumnType, value: SQLValue) {
        #expect(throws: DatabaseCopyError.conversion(table: "t", column: "c", found: value.typeName, expected: "\(type)")) {
            try DatabaseCopier.convert(value, to: type, table: "t", column: "c")
        }
    }
}
